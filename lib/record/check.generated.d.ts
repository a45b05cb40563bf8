// Types of the validator that `npm run schemas` generates from docs/record.schema.json.
/** True only for a value that satisfies the record's JSON Schema (no unknown fields). */
export declare const validate: (data: unknown) => boolean
