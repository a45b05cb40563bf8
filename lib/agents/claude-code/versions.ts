// The Claude Code builds this version of Trail Boss was tested with. The end-to-end suite pins
// both (test/e2e/package.json, test/e2e/clis/claude-code-<newest>/; a unit test checks that
// they match these); `trailboss doctor` compares the installed build with them.

/** The oldest build whose hooks, transcript and screens the queue is known to read right. */
export const OLDEST_SUPPORTED = '2.1.197'
/** The newest build the whole suite ran against. */
export const NEWEST_TESTED = '2.1.332'

/** Pure: `2.1.332` out of `claude --version`'s `2.1.332 (Claude Code)`, or null. */
export const parseClaudeVersion = (text: string): string | null => text.match(/\b\d+\.\d+\.\d+\b/)?.[0] ?? null
