/** SecretBox context of an organization's webhook secrets: a sealed secret opens only for its organization. */
export const webhookSecretContext = (organizationId: string) => `webhook-secret:${organizationId}`;
