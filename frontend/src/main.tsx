import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { detectBackend } from './app/backend';
import { stripTokenFromURL } from './app/info';
import { installTestHooks } from './app/testhooks';
import { applyTheme, loadTheme } from './app/theme';
import './chat/chat.css';
import './app/app.css';

const root = document.getElementById('root');
applyTheme(loadTheme());
if (!root) throw new Error('index.html has no #root');
const backend = detectBackend(window);
if (backend.kind === 'http') stripTokenFromURL(window.location, window.history);
if (backend.kind === 'wails') installTestHooks(window);
createRoot(root).render(
  <StrictMode>
    <App backend={backend} />
  </StrictMode>,
);
