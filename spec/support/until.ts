/** Resolves once `condition` holds, checking after each turn of the event loop (fails after 2,000 turns). */
export async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 2000; turn++) {
    if (condition()) return;
    await new Promise((done) => setImmediate(done));
  }
  throw new Error('condition never held');
}
