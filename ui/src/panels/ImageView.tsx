// An image from a tool result or a resource: its MIME type, its size in pixels and bytes, and a
// zoom. A small image (an icon of 20 px) is scaled up by a whole factor so it can be seen, with
// its pixels kept sharp; a large one fits the pane. The person can choose the scale.
import { useState } from "react";

const SCALES = [1, 2, 4, 8] as const;
type Zoom = "auto" | "fit" | (typeof SCALES)[number];

/** The bytes of `base64` without decoding them. */
const decodedBytes = (base64: string) => {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
};

export const bytes = (n: number) =>
  n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`;

/** The whole factor that brings an image of `width` px to at least 128 px (at most 8). */
export const autoScale = (width: number) => (width >= 128 ? 1 : Math.min(8, 2 ** Math.ceil(Math.log2(128 / width))));

export function ImageView({ mimeType, data, alt }: { mimeType: string; data: string; alt: string }) {
  const [natural, setNatural] = useState<{ w: number; h: number } | null>(null);
  const [zoom, setZoom] = useState<Zoom>("auto");
  const [broken, setBroken] = useState(false);
  const scale = zoom === "auto" ? (natural ? autoScale(natural.w) : 1) : zoom === "fit" ? 1 : zoom;
  const style =
    zoom === "fit" || !natural
      ? { maxWidth: "100%" }
      : { width: natural.w * scale, height: natural.h * scale, maxWidth: zoom === "auto" ? "100%" : "none" };
  return (
    <figure className="image-view">
      <figcaption className="muted" aria-label="Image">
        {mimeType} · {natural ? `${natural.w}×${natural.h} px` : broken ? "cannot be decoded" : "…"} ·{" "}
        {bytes(decodedBytes(data))}
        {natural && (
          <span className="zoom" role="group" aria-label="Zoom">
            {" "}
            ·{" "}
            {(["fit", ...SCALES] as Zoom[]).map((z) => (
              <button
                key={String(z)}
                type="button"
                aria-pressed={zoom === z || (zoom === "auto" && z === scale)}
                onClick={() => setZoom(z)}
              >
                {z === "fit" ? "Fit" : `${z}×`}
              </button>
            ))}
          </span>
        )}
      </figcaption>
      <img
        alt={alt}
        src={`data:${mimeType};base64,${data}`}
        style={style}
        onLoad={(e) => setNatural({ w: e.currentTarget.naturalWidth, h: e.currentTarget.naturalHeight })}
        onError={() => setBroken(true)}
      />
    </figure>
  );
}
