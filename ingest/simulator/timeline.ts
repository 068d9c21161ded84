// A data dir's simulated timeline: the parameters and start time recorded in `<data dir>/.simulator.json`, so that
// a restart replays the same timeline and appends only the blocks each stream lacks (ingest checkpoints stay
// valid). Shared by `npm run simulate` and `npm start`.
import fs from 'node:fs';
import path from 'node:path';
import { STREAMS } from '../formats/types.ts';
import { Simulator, scanResumePoints } from './index.ts';

export const MARKER = '.simulator.json';

export interface TimelineParams {
  seed: number;
  users: number;
  blocksPerSecond: number;
  fillsPerSecond: number;
}

interface Marker extends TimelineParams {
  version: 1;
  startMs: number;
}

export interface Timeline {
  sim: Simulator;
  /** Start of the timeline (the history's first block). */
  startMs: number;
  /** Some streams already hold blocks of this timeline. */
  resuming: boolean;
}

function readMarker(dataDir: string): Marker | null {
  const file = path.join(dataDir, MARKER);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Marker) : null;
}

/** Deletes the streams and the marker: the next open starts a new timeline. */
export function resetTimeline(dataDir: string): void {
  for (const s of STREAMS) fs.rmSync(path.join(dataDir, s), { recursive: true, force: true });
  fs.rmSync(path.join(dataDir, MARKER), { force: true });
}

/**
 * Opens the data dir's timeline, or starts one whose history begins `historyMs` before `now`. Refuses a data dir
 * holding another simulation's files or a real node's streams.
 */
export function openTimeline(dataDir: string, params: TimelineParams, historyMs: number, now = Date.now()): Timeline {
  fs.mkdirSync(dataDir, { recursive: true });
  let marker = readMarker(dataDir);
  if (marker) {
    const same = (Object.keys(params) as (keyof TimelineParams)[]).every((k) => marker?.[k] === params[k]);
    if (!same) {
      throw new Error(
        `${dataDir} holds a simulation with other parameters (${JSON.stringify(marker)}); reset it (npm run simulate -- --reset) or use another SIM_DATA_DIR`,
      );
    }
  } else if (STREAMS.some((s) => fs.existsSync(path.join(dataDir, s)))) {
    throw new Error(`${dataDir} already has node streams not written by the simulator; use another SIM_DATA_DIR`);
  } else {
    marker = { version: 1, ...params, startMs: Math.floor((now - historyMs) / 1000) * 1000 };
    fs.writeFileSync(path.join(dataDir, MARKER), `${JSON.stringify(marker)}\n`);
  }
  const resumeAfter = scanResumePoints(dataDir);
  return {
    sim: new Simulator({ dataDir, ...params, resumeAfter }),
    startMs: marker.startMs,
    resuming: Object.keys(resumeAfter).length > 0,
  };
}
