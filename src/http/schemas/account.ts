// The account's shapes (CONTRACT §1, §15): the signed-in user with their organization, its members and invites.
import { z } from '@hono/zod-openapi';
import { USER_ROLES } from '../../domain/roles.ts';
import { Timestamp } from '../../domain/time.ts';

export const MeSchema = z
  .object({
    user: z.object({ id: z.uuid(), email: z.string(), name: z.string().nullable(), role: z.enum(USER_ROLES), createdAt: Timestamp }),
    organization: z.object({ id: z.uuid(), name: z.string(), creditBalance: z.number().int(), createdAt: Timestamp }),
  })
  .openapi('Me');

export const InviteSchema = z
  .object({
    token: z.string().openapi({ description: 'Shown in this answer only; single use' }),
    inviteUrl: z.string().openapi({ description: 'The dashboard page that accepts the invite (`/#/join?token=…`)' }),
    expiresAt: Timestamp.openapi({ description: '7 days after creation' }),
  })
  .openapi('OrganizationInvite');

export const MemberSchema = z
  .object({ id: z.uuid(), email: z.string(), name: z.string().nullable(), role: z.enum(USER_ROLES), createdAt: Timestamp })
  .openapi('OrganizationMember');
