import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createInvite, membersOf, removeMember } from '../../accounts/team.ts';
import type { AppEnv } from '../env.ts';
import { requestEm } from '../middleware/request-context.ts';
import { organizationId } from '../middleware/session.ts';
import { createRouter, sessionRoute } from '../router.ts';
import { json, uuidParam } from '../schemas/common.ts';
import { InviteSchema, MemberSchema } from '../schemas/account.ts';

/** Where the dashboard is served: the configured public origin, else the origin the request came to. */
const dashboardOrigin = (c: Context<AppEnv>) => c.var.deps.config.PUBLIC_ORIGIN?.replace(/\/+$/, '') ?? new URL(c.req.url).origin;

/** `/api/organization`: the organization's people (CONTRACT §15). */
export const organizationRoutes = createRouter()
  .openapi(
    sessionRoute({
      method: 'post',
      path: '/invites',
      ownerOnly: true,
      tags: ['organization'],
      summary: 'Invite one person to join as a member; the token is in this answer only',
      request: { body: { required: false, ...json(z.object({}).strict().openapi('InviteInput')) } },
      responses: { 201: { description: 'Created', ...json(InviteSchema) } },
      errors: ['validation_error'],
    }),
    async (c) => {
      const { token, expiresAt } = await createInvite(requestEm(c), organizationId(c), c.var.principal.userId);
      const inviteUrl = `${dashboardOrigin(c)}/#/join?token=${encodeURIComponent(token)}`;
      return c.json({ token, inviteUrl, expiresAt: expiresAt.toISOString() }, 201);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/members',
      tags: ['organization'],
      summary: "The organization's users, oldest first",
      responses: { 200: { description: 'The members', ...json(z.object({ data: z.array(MemberSchema) })) } },
    }),
    async (c) => {
      const users = await membersOf(requestEm(c), organizationId(c));
      const data = users.map((u) => ({ id: u.id, email: u.email, name: u.name ?? null, role: u.role, createdAt: u.createdAt.toISOString() }));
      return c.json({ data }, 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'delete',
      path: '/members/{userId}',
      ownerOnly: true,
      tags: ['organization'],
      summary: 'Remove a member; their sessions end at once',
      description: 'The owner cannot be removed (422 `unprocessable`, `details.reason: "owner_cannot_be_removed"`).',
      request: { params: uuidParam('userId') },
      responses: { 204: { description: 'Removed' } },
      errors: ['validation_error', 'not_found', 'unprocessable'],
    }),
    async (c) => {
      await removeMember(requestEm(c), organizationId(c), c.req.valid('param').userId);
      return c.body(null, 204);
    },
  );
