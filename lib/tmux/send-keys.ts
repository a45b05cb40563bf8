// Pure: the tmux arguments that type a person's text exactly as written.

/**
 * `send-keys` arguments that type `text` literally into `pane`. `-l`: no key names; `--`: a
 * text that starts with `-` is not an option; a final `;` is written `\;`, because tmux (3.3a)
 * reads an argument that ends in `;` as the end of its command (`yes;` typed `yes`, `;`
 * nothing at all) and `\;` as a literal `;` (`x\;` types `x;`, `x\\;` types `x\;`).
 */
export const literalKeysArgs = (pane: string, text: string): string[] => [
  'send-keys',
  '-t',
  pane,
  '-l',
  '--',
  text.endsWith(';') ? `${text.slice(0, -1)}\\;` : text,
]
