/**
 * When `rxmcp proxy` reads its servers file again: on SIGHUP, and with `--watch` when the file
 * changes (its folder is watched, so an editor that replaces the file is seen too; a burst of
 * writes is one reload). Reloads run one at a time, in order.
 */
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Options of {@link reloadTriggers}. */
export interface ReloadTriggers {
  /** The servers file. */
  readonly file: string;
  /** Also reload when the file changes. */
  readonly watch: boolean;
  /** How long the file must stay unchanged before it is read. Default 200 ms. */
  readonly debounceMs?: number;
  /** Reads the file and applies it; never rejects (it reports its own errors). */
  readonly reload: (why: string) => Promise<void>;
}

/** The reload triggers, running. */
export interface Reloading {
  /** Reloads now (as a SIGHUP does); resolves once this reload is done. */
  trigger(why: string): Promise<void>;
  /** Stops listening for SIGHUP and for changes, and waits for a reload under way. */
  close(): Promise<void>;
}

/** The default of {@link ReloadTriggers.debounceMs}. */
export const DEFAULT_RELOAD_DEBOUNCE_MS = 200;

/** Listens for SIGHUP (and with `watch`, for changes of the file) and reloads on each. */
export function reloadTriggers(options: ReloadTriggers): Reloading {
  let queue: Promise<void> = Promise.resolve();
  const trigger = (why: string): Promise<void> => (queue = queue.then(() => options.reload(why)));
  const onHangup = () => void trigger('SIGHUP');
  process.on('SIGHUP', onHangup);
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  if (options.watch) {
    const name = basename(options.file);
    watcher = watch(dirname(options.file), (_event, changed) => {
      if (changed !== null && changed.toString() !== name) return;
      clearTimeout(timer);
      timer = setTimeout(() => void trigger(`${name} changed`), options.debounceMs ?? DEFAULT_RELOAD_DEBOUNCE_MS);
    });
    watcher.unref();
  }
  return {
    trigger,
    close: async () => {
      process.off('SIGHUP', onHangup);
      clearTimeout(timer);
      watcher?.close();
      await queue;
    },
  };
}
