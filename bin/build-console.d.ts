// Types of bin/build-console.js for the TypeScript that imports it (bench/console.ts).
export declare const INITIAL_BUNDLE_BUDGET_BYTES: number;
export declare function initialAssets(indexHtml: string): string[];
export declare function buildConsole(outDir: string): Promise<void>;
