// The one Zustand store of the page: the reducer's AppState (slices
// sessions, chat, ui) plus dispatch. Nothing else writes to it.

import { createStore, type StoreApi } from "zustand/vanilla";
import { initialState, reduce, reduceAll } from "./reducer";
import type { Action, AppState } from "./types";

/** Store contents: the reducer's state plus dispatch. */
export interface AppStore extends AppState {
  /** Applies an action through the pure reducer. */
  dispatch(a: Action): void;
  /** Applies several actions in order and notifies subscribers once (one render per batch). */
  dispatchAll(actions: readonly Action[]): void;
}

/** Creates the store (read it in React with zustand's useStore and the selectors of selectors.ts). */
export function createAppStore(initial: AppState = initialState()): StoreApi<AppStore> {
  const slices = (s: AppState): AppState => ({ sessions: s.sessions, chat: s.chat, ui: s.ui });
  return createStore<AppStore>()((set) => ({
    ...initial,
    dispatch: (a) =>
      set((st) => {
        const next = reduce(st, a);
        return next === st ? st : slices(next);
      }),
    dispatchAll: (actions) =>
      set((st) => {
        const next = reduceAll(st, actions);
        return next === st ? st : slices(next);
      }),
  }));
}
