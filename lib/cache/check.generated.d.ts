// Types of the validators `npm run schemas` generates from lib/schemas/caches.ts.
/** True only for a value that satisfies screens's schema (no unknown fields). */
export declare const checkScreens: (data: unknown) => boolean
/** True only for a value that satisfies discovery's schema (no unknown fields). */
export declare const checkDiscovery: (data: unknown) => boolean
/** True only for a value that satisfies transcripts's schema (no unknown fields). */
export declare const checkTranscripts: (data: unknown) => boolean
/** True only for a value that satisfies records's schema (no unknown fields). */
export declare const checkRecords: (data: unknown) => boolean
/** True only for a value that satisfies numbers's schema (no unknown fields). */
export declare const checkNumbers: (data: unknown) => boolean
/** True only for a value that satisfies notify's schema (no unknown fields). */
export declare const checkNotify: (data: unknown) => boolean
/** True only for a value that satisfies seen's schema (no unknown fields). */
export declare const checkSeen: (data: unknown) => boolean
/** True only for a value that satisfies origin's schema (no unknown fields). */
export declare const checkOrigin: (data: unknown) => boolean
/** True only for a value that satisfies hosts's schema (no unknown fields). */
export declare const checkHosts: (data: unknown) => boolean
/** True only for a value that satisfies activity's schema (no unknown fields). */
export declare const checkActivity: (data: unknown) => boolean
/** True only for a value that satisfies listing's schema (no unknown fields). */
export declare const checkListing: (data: unknown) => boolean
