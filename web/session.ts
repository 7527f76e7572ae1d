import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Me } from './types.ts';

export interface Session {
  me: Me;
  /** Reads the user and organization again (the credit balance moves with every paid action). */
  refresh(): Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** Whether the signed-in user may manage keys, providers, webhooks and members (CONTRACT §15: owners only). */
export const isOwner = (me: Me) => me.user.role === 'owner';
