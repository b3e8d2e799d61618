import { describe, expect, it } from 'vitest';

import { remediationIntents, targetMatches } from '../../src/runner/command-guard.js';

const intents = (cmd: string) =>
  remediationIntents(cmd).map(
    (i) => `${i.action}:${i.targets.join(',') || (i.untargeted ? '*' : '')}`,
  );

describe('remediationIntents', () => {
  it.each([
    ['docker restart jellyfin', ['restart:jellyfin']],
    ['docker stop -t 30 Jellyfin caddy', ['restart:jellyfin,caddy']],
    ['docker start jellyfin', ['restart:jellyfin']],
    ['docker container restart jellyfin', ['restart:jellyfin']],
    ['docker -H ssh://nas restart jellyfin', ['restart:jellyfin']],
    ['docker compose restart jellyfin', ['restart:jellyfin']],
    ['docker compose -f /srv/media/compose.yml up -d jellyfin', ['redeployment:jellyfin']],
    ['docker-compose up -d', ['redeployment:*']],
    ['systemctl restart jellyfin.service', ['restart:jellyfin']],
    ['sudo systemctl restart nginx', ['restart:nginx']],
    ['service postgresql restart', ['restart:postgresql']],
    ['kubectl -n media rollout restart deployment/jellyfin', ['restart:jellyfin']],
    ['helm upgrade --install media ./chart', ['redeployment:media']],
    ['ansible-playbook -i hosts site.yml --limit jellyfin', ['redeployment:*']],
    ['ssh host docker restart jellyfin', ['restart:jellyfin']],
    ['ssh -p 2222 -i ~/.ssh/id root@nas "docker restart jellyfin"', ['restart:jellyfin']],
    ["sh -c 'docker restart jellyfin'", ['restart:jellyfin']],
    ['bash -lc "cd /srv && docker compose restart jellyfin"', ['restart:jellyfin']],
    ['ssh nas "sh -c \\"docker restart jellyfin\\""', ['restart:jellyfin']],
    ['env FOO=1 timeout 30 docker restart jellyfin', ['restart:jellyfin']],
    ['docker ps && docker restart jellyfin; echo done', ['restart:jellyfin']],
    ['echo $(docker restart jellyfin)', ['restart:jellyfin']],
    ['curl http://jellyfin/health', []],
    ['docker logs jellyfin | grep restart', []],
    ['echo "docker restart jellyfin"', []],
    ['systemctl status jellyfin', []],
    ['docker compose ps', []],
  ])('%s', (cmd, expected) => {
    expect(intents(cmd)).toEqual(expected);
  });

  it('matches container names that carry the service as a part', () => {
    expect(targetMatches('media-jellyfin-1', 'jellyfin')).toBe(true);
    expect(targetMatches('jellyfin', 'jellyfin')).toBe(true);
    expect(targetMatches('jellyfinx', 'jellyfin')).toBe(false);
  });
});
