/** Types of delay-proxy.js, for the tests that put it between a fleet and its database. */
export interface DelayProxy {
  /** The database URL through the proxy. */
  url: string;
  stop(): Promise<void>;
}

export function startDelayProxy(url: string, delayMs: number): Promise<DelayProxy>;
