// Pure, for adapters' state rules: `lastTool` is the tool call in flight in the current prompt
// (started, not yet ended), so an interrupted turn can say what was running when it stopped.
import { jsonEqual } from '../json-equal.js'
import type { ToolCall } from '../record/types.js'

/** Whether two hook events name the same call: by its id, else (Gemini CLI has none) by name and input. */
export const isSameCall = (a: ToolCall | null, b: ToolCall | null): boolean =>
  a !== null &&
  b !== null &&
  (a.useId !== null && b.useId !== null ? a.useId === b.useId : a.name === b.name && jsonEqual(a.input, b.input))

/** `lastTool` once the call `ended` finished: none in flight when it was the one. */
export const afterToolEnd = (lastTool: ToolCall | null, ended: ToolCall | null): ToolCall | null =>
  isSameCall(lastTool, ended) ? null : lastTool
