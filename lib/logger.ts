// Where problems go that must not reach the person's terminal (the emitter's log).

export type Logger = (line: string) => void
