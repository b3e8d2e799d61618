import { describe, expect, it } from 'vitest';

import { readReobservation, type ReobservationBars } from '../../src/memory/index.js';

const BARS: ReobservationBars = { duplicate: 0.75, related: 0.6, agreeing: 0.55, changing: 0.45 };
const read = (a: string, b: string, similarity: number) =>
  readReobservation(a, b, similarity, BARS).kind;

describe('what the rules make of a re-observation', () => {
  it('is the same fact at the duplicate bar, or from the agreeing bar when the values agree', () => {
    expect(read('jellyfin restarts in a minute', 'jellyfin is back after a restart', 0.8)).toBe(
      'same',
    );
    const [weekly, onceAWeek] = [
      'smartd runs a long self-test on each disk weekly',
      'once a week smartd kicks off an extended self test on every drive',
    ];
    expect(read(weekly, onceAWeek, 0.56)).toBe('same');
    expect(read(weekly, onceAWeek, 0.54)).toBe('apart');
  });

  it('is a change from the changing bar when the rules read one', () => {
    const [nas01, moved] = [
      'the wireguard server runs on the opnsense router',
      'the wg endpoint was moved from opnsense to a small vps',
    ];
    expect(read(nas01, moved, 0.49)).toBe('changes');
    expect(read(nas01, moved, 0.44)).toBe('apart');
  });

  it('is unsure between the related and duplicate bars with nothing the rules read', () => {
    const [a, b] = [
      'home assistant runs in a docker container with host networking',
      'ha is containerized and uses the host network mode',
    ];
    expect(read(a, b, 0.64)).toBe('unsure');
    expect(read(a, b, 0.58)).toBe('apart');
  });

  it('keeps a value of another thing apart however close', () => {
    expect(
      read(
        'a scrub of the tank pool takes nine hours',
        'a resilver of a tank disk takes two days',
        0.9,
      ),
    ).toBe('apart');
  });
});
