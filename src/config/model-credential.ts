/** Whether the Claude CLI has a credential: the gateway's default backend and the banner. */
const MODEL_CREDENTIALS = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
] as const;

/** True when `env` gives the Claude CLI a credential (or a cloud provider that brings its own). */
export function hasModelCredential(env: Record<string, string | undefined>): boolean {
  return MODEL_CREDENTIALS.some((k) => Boolean(env[k]?.trim()));
}
