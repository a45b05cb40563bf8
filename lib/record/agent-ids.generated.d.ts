// Types of the list `npm run schemas` generates from lib/agents/hook-registry.ts.
/** The ids of the registered agents, in the registry's order. */
export declare const AGENT_IDS: [string, ...string[]]
