// Pure: the whole lines of a piece of a JSON-lines file (Claude Code's transcript, Gemini CLI's
// chat file) read from some offset while its agent may still be appending to it.

/**
 * The lines of `text` that are whole: the part after the last newline is still being written
 * (or empty), and a read that began mid-file (`fromStart` false) starts mid-line.
 */
export const wholeLines = (text: string, fromStart: boolean): string[] => {
  const lines = text.split('\n')
  lines.pop()
  if (!fromStart) lines.shift()
  return lines
}
