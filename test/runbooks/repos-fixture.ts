/**
 * A repos folder as an operator mounts it: `infra` with a CLAUDE-OPS.md manifest, a `.claude-ops`
 * folder holding a check, a playbook and a skill of each kind and an mcp.json, and `media` with
 * only a README. Files are written as given, so a test can break one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const MANIFEST = `# Claude Ops Manifest

Ansible inventory and playbooks for the home lab.

## Kind

Ansible infrastructure

## Capabilities

- **service-discovery**: \`inventory/hosts.yaml\` lists every service and its host.
- **redeployment**: playbooks in \`playbooks/\` redeploy any service.

## Inventory

Services are grouped by host.

## Rules

- Never modify files in this repo
- Playbook runs require Opus tier (Tier 3)
`;

export const FILES: Record<string, string> = {
  'infra/CLAUDE-OPS.md': MANIFEST,
  'infra/inventory/hosts.yaml': 'all: {}\n',
  'infra/.claude-ops/checks/backups.md': `# Check: Nightly backups

## When it applies

The restic backup of the NAS, every run.

## How to check

\`restic snapshots --latest 1\`
`,
  'infra/.claude-ops/checks/media-library.md': `# Check: Media library

Verify the media library is mounted on the NAS.
`,
  'infra/.claude-ops/playbooks/fix-media-perms.md': `# Playbook: Fix media permissions

**Minimum tier**: 2

## When it applies

Jellyfin cannot read new files.
`,
  'infra/.claude-ops/skills/prune-old-logs.md': `# Skill: Prune old logs

**Minimum tier**: 2

## When it applies

Log folders older than 30 days.
`,
  'infra/.claude-ops/mcp.json': `{
  "mcpServers": {
    "ansible-inventory": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "some-ansible-mcp"],
      "env": { "INVENTORY_TOKEN": "secret-token" }
    }
  }
}
`,
  'media/README.md': `# Media stack

![build](https://example.com/badge.svg)

Docker Compose files for Jellyfin, Sonarr and Radarr.

## Usage

Run it.
`,
  'media/compose.yaml': 'services: {}\n',
};

export interface ReposFolder {
  dir: string;
  write(path: string, text: string): void;
  remove(): void;
}

export function reposFolder(files: Record<string, string> = FILES): ReposFolder {
  const dir = mkdtempSync(join(tmpdir(), 'watchkeeper-repos-'));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  return { dir, write, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
