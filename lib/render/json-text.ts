// Pure: every JSON document the CLI prints (`ls --json`, its `--follow` lines and
// `--until-change` answer, `show --json`, `doctor --json`, what `notify --exec` gets on stdin).
// JSON.stringify escapes C0 controls but passes C1 controls (U+0080-U+009F: U+009B is a CSI
// that terminals obey), DEL, and U+2028/U+2029 (line breaks to JavaScript before ES2019) as they
// are, and a person reads `--json` on a terminal too. Those become `\u` escapes: the text read
// back is the same, to the character.

/** What JSON.stringify leaves raw but a terminal or a JavaScript reader would act on. */
const RAW_CONTROLS = /[\u007f-\u009f\u2028\u2029]/g

const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

/**
 * JSON.stringify's text with every control character escaped. Such characters can stand only
 * inside strings (JSON's own whitespace is four ASCII characters), so escaping them is safe.
 */
export const formatJson = (value: object, indent?: number): string => JSON.stringify(value, null, indent).replace(RAW_CONTROLS, escape)
