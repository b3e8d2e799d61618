/** Each tier's default allowed and disallowed tools: the Go sidecar's (cmd/claudeops/main.go). */
export const TIER_TOOLS = {
  1: {
    allowed: 'Bash,Read,Grep,Glob,Task,WebFetch,WebSearch',
    disallowed:
      'Bash(docker restart:*),Bash(docker stop:*),Bash(docker start:*),Bash(docker rm:*),' +
      'Bash(docker compose:*),Bash(ansible:*),Bash(ansible-playbook:*),Bash(helm:*),' +
      'Bash(gh pr create:*),Bash(gh pr merge:*),Bash(tea pr create:*),Bash(git push:*),' +
      'Bash(git commit:*),Bash(systemctl restart:*),Bash(systemctl stop:*),Bash(systemctl start:*),' +
      'Bash(apprise:*)',
  },
  2: {
    allowed: 'Bash,Read,Write,Edit,Grep,Glob,Task,WebFetch,WebSearch',
    disallowed:
      'Bash(ansible:*),Bash(ansible-playbook:*),Bash(helm:*),Bash(docker compose down:*),Bash(gh pr merge:*)',
  },
  3: {
    allowed: 'Bash,Read,Write,Edit,Grep,Glob,Task,WebFetch,WebSearch',
    disallowed:
      'Bash(rm -rf /:*),Bash(docker system prune:*),Bash(git push --force:*),Bash(gh pr merge:*)',
  },
} as const;
