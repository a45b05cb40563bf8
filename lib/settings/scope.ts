// Where `install` writes: the person's own settings, the project's shared ones, or its local ones.
// Kept in settings/ because the agents' settings writers, doctor and `install`'s option table all
// name them, and settings sit below every one of them.
export const SCOPES = ['user', 'project', 'local'] as const
export type Scope = (typeof SCOPES)[number]
