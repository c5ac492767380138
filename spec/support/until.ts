/** Resolves once `condition` holds, checking after each turn of the event loop (fails after 2,000 turns). */
export async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 2000; turn++) {
    if (condition()) return;
    await new Promise((done) => setImmediate(done));
  }
  throw new Error('condition never held');
}

/**
 * Resolves once `condition` holds, checking every 10 ms of real time (fails after `withinMs`): for
 * what another process or the network brings, which a loaded machine may take a while to deliver.
 */
export async function eventually(condition: () => boolean, withinMs = 15_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition never held within ${withinMs} ms`);
    await new Promise((done) => setTimeout(done, 10));
  }
}
