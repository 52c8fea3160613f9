import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { detectBackend } from './transport/backend';
import { applyTheme, loadTheme } from './app/theme';
import './chat/chat.css';
import './app/app.css';

const root = document.getElementById('root');
applyTheme(loadTheme());
if (!root) throw new Error('index.html has no #root');
const backend = detectBackend(window);
// The desktop test harness's hooks exist only in the smoketest build (vite
// --mode smoketest, embedded by the smoketest binary): a normal build drops
// this branch and, with it, the hooks' module.
if (import.meta.env.MODE === 'smoketest' && backend.kind === 'wails') {
  void import('./testing/testhooks').then((m) => m.installTestHooks(window));
}
createRoot(root).render(
  <StrictMode>
    <App backend={backend} />
  </StrictMode>,
);
