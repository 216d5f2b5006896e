import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { NavigateProvider } from "./layout/navigate";
import { RevealProvider } from "./log/reveal";
import "./styles.css";
import { loadTheme } from "./theme";

// The saved theme before the first paint where it can be: the window is dark until it is read.
void loadTheme().catch(() => {});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <NavigateProvider>
      <RevealProvider>
        <App />
      </RevealProvider>
    </NavigateProvider>
  </StrictMode>,
);
