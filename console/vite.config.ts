/**
 * The console's build (bin/build.js runs it into dist/console; docs/console.md). The page is served by
 * Parley itself, so `npm run build` is all a user runs; `vite` alone (root console/) is the dev server,
 * proxying the API to a Parley on :8787.
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const PARLEY = process.env.PARLEY_URL ?? 'http://127.0.0.1:8787';
const API = ['/api', '/ag-ui', '/stream', '/mcp', '/health', '/ready'];

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    target: 'es2022',
    // Initial bundle budget (issue 19): 300 KB gzipped; bin/build.js prints the figure and fails above it.
    chunkSizeWarningLimit: 600,
    reportCompressedSize: false,
  },
  server: { proxy: Object.fromEntries(API.map((path) => [path, PARLEY])) },
});
