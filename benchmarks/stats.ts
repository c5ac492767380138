/**
 * The statistics of benchmark samples: the engine's (rxmcp/bench), so that the figures of `npm run
 * bench` and of `rxmcp bench` are pooled by one definition of a median and a spread.
 */
export { median, spreadOf as spread } from '../lib/entries/bench';
export type { Spread } from '../lib/entries/bench';
