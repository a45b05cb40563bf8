// Loaded with `node --require` into an emitter: its wall clock runs TRAILBOSS_TEST_CLOCK_SHIFT_MS
// ahead, as after a wrong NTP answer, a VM restored from a snapshot or a resume from suspend.
const shift = Number(process.env.TRAILBOSS_TEST_CLOCK_SHIFT_MS ?? 0)
const origin = performance.timeOrigin + shift
Object.defineProperty(performance, 'timeOrigin', { get: () => origin })
const realNow = Date.now
Date.now = () => realNow() + shift
