// STUB (replaced by the real module at merge)
export const SSH_CONNECT_TIMEOUT_S = 2
export const SSH_READ_TIMEOUT_MS = 3000
export const SSH_MAX_ANSWER_BYTES = 4 * 1024 * 1024
