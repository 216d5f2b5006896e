import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { NavigateProvider } from "./panels/navigate";
import { RevealProvider } from "./log/reveal";
import "./styles.css";

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <NavigateProvider>
      <RevealProvider>
        <App />
      </RevealProvider>
    </NavigateProvider>
  </StrictMode>,
);
