/**
 * Progress of long work on stderr: a bar redrawn in place on a terminal, a line per tenth
 * elsewhere (logs and CI), with the rate and the time left.
 */
import type { CliIo } from './io.js';

export function progressReporter(io: CliIo, label: string) {
  const started = io.clock.now();
  let lastTenth = -1;
  let lastDraw = 0;
  return {
    update(done: number, total: number): void {
      const now = io.clock.now();
      const fraction = total > 0 ? Math.min(1, done / total) : 1;
      const elapsed = Math.max(1, now - started) / 1000;
      const rate = done / elapsed;
      const eta = rate > 0 ? Math.round((total - done) / rate) : 0;
      const text = `${label} ${done}/${total} (${Math.floor(fraction * 100)}%) ${rate.toFixed(0)}/s, ${eta} s left`;
      if (io.stderrIsTty) {
        if (now - lastDraw < 100 && done < total) return;
        lastDraw = now;
        const width = 30;
        const filled = Math.round(fraction * width);
        io.stderr(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}\x1b[K`);
        return;
      }
      const tenth = Math.floor(fraction * 10);
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      io.stderr(`${text}\n`);
    },
    end(): void {
      if (io.stderrIsTty) io.stderr('\n');
    },
  };
}
