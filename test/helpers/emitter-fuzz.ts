// What the emitter is fuzzed with, shared by test/reliability.test.ts and the soak run
// (bench/soak.ts): hook payloads with random values and hostile session ids, and any bytes.
import fc from 'fast-check'

export const EVENT_NAMES = [
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'Notification',
  'Stop',
  'StopFailure',
  'PreCompact',
  'MessageDisplay',
]
const anyValue = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 2 }))
const idArb = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('../../x', '..', '.', '/etc/passwd', 'a/b', 'a\\b', 'a.json', '', 'x'.repeat(129), 'ok\u0000', '%2e%2e'),
  anyValue,
)

/** A payload-shaped object: every field may be missing, of the wrong type or hostile. */
export const payloadArb = fc.record(
  {
    session_id: idArb,
    hook_event_name: fc.oneof(fc.constantFrom(...EVENT_NAMES), anyValue),
    prompt_id: fc.oneof(fc.string({ maxLength: 8 }), anyValue),
    notification_type: fc.oneof(fc.constantFrom('permission_prompt', 'idle_prompt', 'elicitation_dialog'), anyValue),
    source: fc.oneof(fc.constantFrom('startup', 'resume', 'clear', 'compact'), anyValue),
    tool_name: fc.oneof(fc.constantFrom('Bash', 'AskUserQuestion'), anyValue),
    tool_input: anyValue,
    tool_use_id: anyValue,
    last_assistant_message: fc.oneof(fc.string({ maxLength: 5000 }), anyValue),
    background_tasks: anyValue,
    is_interrupt: anyValue,
    cwd: fc.oneof(fc.constantFrom('/', '/tmp', '../..', ''), anyValue),
    transcript_path: fc.oneof(fc.constantFrom('/etc/passwd', '../../x.jsonl', '/tmp/../etc/x.jsonl'), anyValue),
  },
  { requiredKeys: [] },
)

/** What an emitter may get on stdin: random bytes, random JSON, payloads, payloads cut short. */
export const emitterInputArb: fc.Arbitrary<string | Buffer> = fc.oneof(
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b)) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 3, arbitrary: payloadArb.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: payloadArb.map((v) => JSON.stringify(v).slice(0, -3)) },
)
