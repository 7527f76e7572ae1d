import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { type Account, accountOf, signIn, signUp } from '../../accounts/service.ts';
import { createSession, deleteSession, SESSION_COOKIE } from '../../auth/sessions.ts';
import { clientAddress } from '../client-address.ts';
import { enforceRateLimit } from '../middleware/rate-limit.ts';
import type { AppEnv } from '../env.ts';
import { createRouter, publicRoute, sessionRoute } from '../router.ts';
import { json } from '../schemas/common.ts';
import { MeSchema as Me } from '../schemas/account.ts';
import { requestEm } from '../middleware/request-context.ts';

const Email = z.string().trim().toLowerCase().pipe(z.email().max(254)).openapi({ example: 'jane@acme.com' });
const Password = z.string().min(10).max(1024).openapi({ example: 'correct horse battery' });

const SignupSchema = z
  .object({
    email: Email,
    password: Password,
    name: z.string().trim().max(200).optional(),
    organizationName: z.string().trim().min(1).max(200).optional().openapi({ description: 'Required unless `inviteToken` is given' }),
    inviteToken: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'Joins the organization that made the invite, as a member (no signup credits); then leave `organizationName` out' }),
  })
  .superRefine((body, ctx) => {
    if (body.inviteToken !== undefined && body.organizationName !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['organizationName'], message: 'leave it out when joining with an invite' });
    }
    if (body.inviteToken === undefined && body.organizationName === undefined) {
      ctx.addIssue({ code: 'custom', path: ['organizationName'], message: 'Required' });
    }
  })
  .openapi('Signup');
const LoginSchema = z.object({ email: Email, password: z.string().max(1024) }).openapi('Login');

const toMe = ({ user, organization: org }: Account): z.infer<typeof Me> => ({
  user: { id: user.id, email: user.email, name: user.name ?? null, role: user.role, createdAt: user.createdAt.toISOString() },
  organization: { id: org.id, name: org.name, creditBalance: org.creditBalance, createdAt: org.createdAt.toISOString() },
});

async function startSession(c: Context<AppEnv>, userId: string) {
  const { config } = c.var.deps;
  const { token, expiresAt } = await createSession(requestEm(c), userId, config.SESSION_TTL);
  const secure = (config.PUBLIC_ORIGIN ?? c.req.url).startsWith('https:');
  setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: 'Lax', path: '/', secure, expires: expiresAt });
}

/**
 * Spends one of the client address's tokens for `action`: signups are CPU (a memory-hard hash) and credits
 * (SIGNUP_CREDITS), sign-ins are CPU, so one address gets only a few of each whatever their outcome. Budgets
 * this small are reserved one token at a time, so the limit is exact across processes.
 */
function limitPerAddress(c: Context<AppEnv>, action: 'signup' | 'login', address: string) {
  const { SIGNUP_PER_HOUR, LOGIN_PER_MINUTE } = c.var.deps.config;
  const policy = action === 'signup' ? { perMinute: SIGNUP_PER_HOUR / 60, burst: SIGNUP_PER_HOUR } : { perMinute: LOGIN_PER_MINUTE, burst: LOGIN_PER_MINUTE };
  return enforceRateLimit(c, `${action}-address:${address}`, policy);
}

export const authRoutes = createRouter()
  .openapi(
    publicRoute({
      method: 'post',
      path: '/signup',
      tags: ['auth'],
      summary: 'Create a user and its organization (or join one with an invite), and sign in',
      request: { body: { required: true, ...json(SignupSchema) } },
      responses: { 201: { description: 'Signed up; session cookie set', ...json(Me) } },
      errors: ['validation_error', 'conflict', 'rate_limited'],
    }),
    async (c) => {
      await limitPerAddress(c, 'signup', clientAddress(c));
      const { inviteToken, organizationName, ...person } = c.req.valid('json');
      const joining = inviteToken === undefined ? { organizationName: organizationName! } : { inviteToken };
      const userId = await signUp(requestEm(c), { ...person, ...joining }, c.var.deps.config.SIGNUP_CREDITS);
      await startSession(c, userId);
      return c.json(toMe(await accountOf(requestEm(c), userId)), 201);
    },
  )
  .openapi(
    publicRoute({
      method: 'post',
      path: '/login',
      tags: ['auth'],
      summary: 'Sign in with email and password',
      request: { body: { required: true, ...json(LoginSchema) } },
      responses: { 200: { description: 'Signed in; session cookie set', ...json(Me) } },
      errors: ['validation_error', 'unauthorized', 'rate_limited'],
    }),
    async (c) => {
      const { email, password } = c.req.valid('json');
      const ip = clientAddress(c);
      await limitPerAddress(c, 'login', ip);
      const userId = await signIn(requestEm(c), email, password, ip);
      await startSession(c, userId);
      return c.json(toMe(await accountOf(requestEm(c), userId)), 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'post',
      path: '/logout',
      tags: ['auth'],
      summary: 'End the session',
      responses: { 204: { description: 'Signed out; the session is invalid from now on' } },
    }),
    async (c) => {
      const token = getCookie(c, SESSION_COOKIE);
      if (token) await deleteSession(requestEm(c), token);
      deleteCookie(c, SESSION_COOKIE, { path: '/' });
      return c.body(null, 204);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/me',
      tags: ['auth'],
      summary: 'The signed-in user and organization',
      responses: { 200: { description: 'Current user', ...json(Me) } },
    }),
    async (c) => c.json(toMe(await accountOf(requestEm(c), c.var.principal.userId!)), 200),
  );
