import { defineConfig } from 'vite';

// The UI benchmark page (bench.html → bench-dist/): the real components,
// store and per-frame batching fed synthetic events in-page. Not part of the
// shipped bundle; driven by e2e/bench.ui.mjs.
export default defineConfig({
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: 'bench-dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    rollupOptions: { input: 'bench.html' },
  },
});
