/**
 * The chat the demo posts to conversation memory, one round every few seconds, so the
 * Conversations page shows the sliding-window summaries (the window starts sliding at round 8)
 * and the memories the simulated gate and extractor find in it. Plain data: the demo's own words.
 */
export const DEMO_CONVERSATION_ID = 'demo-chat';

export const DEMO_ROUNDS: [user: string, assistant: string][] = [
  [
    'Hi! Can you help me plan the homelab clean-up this weekend?',
    'Of course. What is on the list?',
  ],
  [
    'The media server keeps stalling. We decided to move Jellyfin to the new NUC.',
    'Moving it to the NUC makes sense: it has the Quick Sync encoder for transcodes.',
  ],
  ['How long will the migration take?', 'About an hour, most of it copying the metadata folder.'],
  [
    'I prefer doing risky changes on Saturday mornings, when nobody is streaming.',
    'Saturday morning it is. I will keep the old container stopped, not removed, until Sunday.',
  ],
  ['Thanks, that sounds good.', 'You are welcome.'],
  [
    'Remember that the NAS share is mounted at /mnt/media on every host.',
    'Noted: /mnt/media on every host, so the new container can use the same paths.',
  ],
  ['What about backups?', 'The nightly restic job covers the Jellyfin config folder already.'],
  [
    'The deadline for the whole clean-up is the end of the month.',
    'Then the migration this weekend leaves three weeks for the DNS and certificate work.',
  ],
  ['Cool.', 'Anything else for this weekend?'],
  [
    'We will always keep two copies of the config before any migration.',
    'Good rule. I will make a second copy on the NAS before we start.',
  ],
  ['Nice, talk later.', 'Talk later!'],
  [
    'One more thing: I prefer Caddy over Traefik for the new reverse proxy.',
    'Caddy it is; its automatic certificates fit the plan for the certificate work.',
  ],
];
