import type { Config } from '../../config.js';
import { AppError } from '../../platform/http/errors.js';

/** A window lasts this long from its first failure. */
const MINUTE_MS = 60_000;
const ACCOUNT_WINDOW_MS = 15 * MINUTE_MS;
/**
 * Keys one counter holds at most. Beyond it the oldest window is forgotten: memory stays bounded
 * under a flood of made-up names, which the per-address request limit already slows down.
 */
const MAX_KEYS = 100_000;

/** A login refused before its password is checked; the route sends `retryAfterSeconds` as Retry-After. */
export class LoginThrottled extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(
      'RateLimitError',
      `Too many failed logins for this account; try again in ${retryAfterSeconds} seconds.`,
    );
  }
}

/** Failures per key in fixed windows that start at a key's first failure. */
class FailureWindows {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Milliseconds until `key` may try again; 0 when it may now. */
  blockedFor(key: string, at: number): number {
    const window = this.windows.get(key);
    if (!window || window.endsAt <= at) return 0;
    return window.count >= this.max ? window.endsAt - at : 0;
  }

  fail(key: string, at: number) {
    const window = this.windows.get(key);
    if (window && window.endsAt > at) {
      window.count += 1;
      return;
    }
    this.windows.delete(key);
    if (this.windows.size >= MAX_KEYS) this.forgetOldest(at);
    this.windows.set(key, { count: 1, endsAt: at + this.windowMs });
  }

  reset(key: string) {
    this.windows.delete(key);
  }

  /** Takes back one failure of the key's current window. */
  forgive(key: string) {
    const window = this.windows.get(key);
    if (window && window.count > 0) window.count -= 1;
  }

  /** Windows are kept in the order they started: the ended ones first, else the oldest one. */
  private forgetOldest(at: number) {
    for (const [key, window] of this.windows) {
      if (window.endsAt > at && this.windows.size < MAX_KEYS) return;
      this.windows.delete(key);
    }
  }
}

/**
 * Password guessing limits (issue 43, finding 6). `account` is what the login names, normalised:
 * the user's id when a user matches, so that a username and its email share one budget. Failures
 * count per client address and account (`LOGIN_RATE_LIMIT` a minute; a success clears it), so
 * that guesses from one address never lock the user out at another; and per account over all
 * addresses (`LOGIN_ACCOUNT_FAILURE_LIMIT` per 15 minutes; a success does not clear it, it bounds
 * the guesses). The counts live in this process, like @fastify/rate-limit's: each instance of
 * the service counts its own.
 */
export function loginThrottle(
  config: Pick<Config, 'LOGIN_RATE_LIMIT' | 'LOGIN_ACCOUNT_FAILURE_LIMIT'>,
  now: () => Date,
) {
  const fromAddress = new FailureWindows(config.LOGIN_RATE_LIMIT, MINUTE_MS);
  const atAccount = new FailureWindows(config.LOGIN_ACCOUNT_FAILURE_LIMIT, ACCOUNT_WINDOW_MS);
  const pair = (address: string, account: string) => `${address}\u0000${account}`;
  return {
    /**
     * Before the password is checked: throws LoginThrottled when this address, or everyone, has
     * failed too often at the account; else counts the attempt as a failure until it `succeeded`,
     * so that attempts running at the same time cannot all pass the check.
     */
    attempt(address: string, account: string) {
      const at = now().getTime();
      const key = pair(address, account);
      const wait = Math.max(fromAddress.blockedFor(key, at), atAccount.blockedFor(account, at));
      if (wait > 0) throw new LoginThrottled(Math.ceil(wait / 1000));
      fromAddress.fail(key, at);
      atAccount.fail(account, at);
    },
    /** The attempt was right: this address starts again at the account, and it was no failure. */
    succeeded(address: string, account: string) {
      fromAddress.reset(pair(address, account));
      atAccount.forgive(account);
    },
  };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
