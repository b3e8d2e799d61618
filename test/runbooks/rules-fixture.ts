/**
 * A repos folder whose manifests hold rules the guard enforces: `infra` (Ansible, Helm) gives
 * command families a minimum tier and its playbooks tier 3; `docs` is read-only.
 */
import { reposFolder, type ReposFolder } from './repos-fixture.js';

export const INFRA_MANIFEST = `# Infra

Ansible and Helm for the home lab.

## Kind

Ansible infrastructure

## Rules

- Check the inventory before any change
- \`ansible-playbook\` requires tier 3
- \`helm upgrade\` and \`helm rollback\` require tier 3
- Playbook runs require Opus tier (Tier 3)
`;

export const DOCS_MANIFEST = `# Docs

The runbook wiki, kept by hand.

## Kind

Documentation

## Rules

- Read-only: never modify files here
`;

export function rulesRepos(): ReposFolder {
  return reposFolder({
    'infra/CLAUDE-OPS.md': INFRA_MANIFEST,
    'infra/site.yml': '- hosts: all\n',
    'infra/.claude-ops/playbooks/redeploy.md': `# Playbook: Redeploy

**Minimum tier**: 2

## When it applies

A service must be redeployed.
`,
    'docs/CLAUDE-OPS.md': DOCS_MANIFEST,
    'docs/notes.md': '# Notes\n',
  });
}
