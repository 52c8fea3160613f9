import { writeFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vitest/config';

// keepDistPlaceholder re-creates dist/.gitkeep after each build: the Go
// binary embeds frontend/dist, which must exist even before the first build.
function keepDistPlaceholder(): Plugin {
  return {
    name: 'agenthub-keep-dist-placeholder',
    apply: 'build',
    closeBundle() {
      writeFileSync(new URL('./dist/.gitkeep', import.meta.url), '');
    },
  };
}

export default defineConfig({
  // JSX via esbuild's automatic runtime (no @vitejs/plugin-react).
  esbuild: { jsx: 'automatic' },
  plugins: [keepDistPlaceholder()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One bundle serves the Wails window and the browser dashboard; no
    // inline scripts, so the dashboard's strict CSP holds.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    // One local bundle (React, marked, highlight.js, DOMPurify) served from disk or loopback.
    chunkSizeWarningLimit: 900,
  },
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    environment: 'node',
  },
});
