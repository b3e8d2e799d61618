/**
 * A repos folder of three, as an operator moving from Claude Ops mounts it: `infra` with a
 * manifest whose rules the guard holds (`ansible-playbook` requires tier 3), a check, a playbook,
 * a skill and an mcp.json declaring a real MCP server (the docker stand-in); `media` with a
 * README only; `broken`, whose manifest has no title or kind and whose mcp.json is not JSON.
 */
import { fileURLToPath } from 'node:url';

import { FILES, reposFolder, type ReposFolder } from './repos-fixture.js';

export const DOCKER_MCP = fileURLToPath(new URL('../fixtures/bin/docker-mcp.mjs', import.meta.url));

export const TIER_RULE = '`ansible-playbook` requires tier 3';

export const OPS_MANIFEST = `# Infra

Ansible inventory and playbooks for the home lab.

## Kind

Ansible infrastructure

## Capabilities

- **service-discovery**: \`inventory/hosts.yaml\` lists every service and its host.
- **redeployment**: playbooks in \`playbooks/\` redeploy any service.

## Rules

- Check the inventory before any change
- ${TIER_RULE}
`;

/** The line of the tier rule in OPS_MANIFEST (the guard cites it). */
export const TIER_RULE_LINE = OPS_MANIFEST.split('\n').indexOf(`- ${TIER_RULE}`) + 1;

export function opsRepos(): ReposFolder {
  return reposFolder({
    ...FILES,
    'infra/CLAUDE-OPS.md': OPS_MANIFEST,
    'infra/site.yml': '- hosts: all\n',
    'infra/.claude-ops/mcp.json': JSON.stringify({
      mcpServers: {
        docker: { type: 'stdio', command: process.execPath, args: [DOCKER_MCP] },
      },
    }),
    'broken/CLAUDE-OPS.md': '## Rules\n\n- `helm` requires tier 3\n',
    'broken/.claude-ops/mcp.json': '{ "mcpServers": {\n',
  });
}
