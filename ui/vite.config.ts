import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  server: { port: 1420, strictPort: true, host: "127.0.0.1" },
  build: { outDir: "dist", target: "es2021", chunkSizeWarningLimit: 2000 },
  test: { environment: "node", include: ["src/**/*.test.{ts,tsx}"] },
});
