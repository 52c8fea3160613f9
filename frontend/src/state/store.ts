// Zustand store wrapping the pure reducer.

import { createStore, type StoreApi } from "zustand/vanilla";
import { initialChatState, reduce } from "./reducer";
import type { Action, ChatState } from "./types";

/** Store contents: the reducer's state plus dispatch. */
export interface ChatStore extends ChatState {
  /** Applies an action through the pure reducer. */
  dispatch(a: Action): void;
  /** Applies several actions in order and notifies subscribers once (one render per batch). */
  dispatchAll(actions: readonly Action[]): void;
}

/** Creates a vanilla Zustand store over the reducer (use with zustand's useStore in React). */
export function createChatStore(initial: ChatState = initialChatState()): StoreApi<ChatStore> {
  return createStore<ChatStore>()((set) => ({
    ...initial,
    dispatch: (a) =>
      set((st) => {
        const next = reduce(st, a);
        return next === st ? st : { sessions: next.sessions };
      }),
    dispatchAll: (actions) =>
      set((st) => {
        let next: ChatState = st;
        for (const a of actions) next = reduce(next, a);
        return next === st ? st : { sessions: next.sessions };
      }),
  }));
}
