/** A user's place in its organization: the owner manages keys, providers, webhooks and members; members use the rest. */
export const USER_ROLES = ['owner', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];
