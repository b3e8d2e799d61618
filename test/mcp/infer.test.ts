import { describe, expect, it } from 'vitest';

import { inferCategory, inferService } from '../../src/mcp/infer.js';

describe('what memory_add infers when it is left out', () => {
  it('the category, by the words of each kind (behavior when none fits)', () => {
    expect(inferCategory('Takes 60s to start after a restart')).toBe('timing');
    expect(inferCategory('Needs the NFS share mounted before it starts')).toBe('dependency');
    expect(inferCategory('Clearing the transcode folder fixed the stalls')).toBe('remediation');
    expect(inferCategory('Nightly backup runs at 02:00')).toBe('maintenance');
    expect(inferCategory('Logs every request twice')).toBe('behavior');
  });

  it('the service, when the text names exactly one known service', () => {
    const known = ['jellyfin', 'caddy', 'postgres'];
    expect(inferService('jellyfin takes 60s to start', known)).toBe('jellyfin');
    expect(inferService('Jellyfin sits behind caddy', known)).toBeNull();
    expect(inferService('the media server is slow', known)).toBeNull();
    expect(inferService('jellyfin-web serves the UI', known)).toBeNull();
  });
});
