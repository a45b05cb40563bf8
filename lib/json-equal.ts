// Equality of JSON values by their text, key order included: a record's tool input and a
// settings file compare as they are written.

export const jsonEqual = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)
