// Context fields (a message, a tool input) are capped so a record stays well under 64 KB.

export const CONTEXT_CAP = 4096
export const TRUNCATION_MARKER = '…[truncated]'

export const capText = (text: string, cap = CONTEXT_CAP): string =>
  text.length <= cap ? text : text.slice(0, cap - TRUNCATION_MARKER.length) + TRUNCATION_MARKER

/** Keeps small inputs as they are; a large one becomes its capped JSON text (docs/design.md §2.2). */
export const capInput = (input: unknown, cap = CONTEXT_CAP): unknown => {
  if (input === undefined) return null
  const json = JSON.stringify(input)
  if (json === undefined) return null
  return json.length <= cap ? input : capText(json, cap)
}
