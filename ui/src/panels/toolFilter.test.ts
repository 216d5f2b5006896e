import { describe, expect, it } from "vitest";
import { filterByText, filterWords, matches, searchText } from "./toolFilter";

const tool = { name: "get_weather", title: "Weather", description: "Reads the FORECAST for a city." };

describe("the tool filter", () => {
  it("finds a tool by every word typed, in its name, title or description, in any case", () => {
    const text = searchText(tool);
    expect(matches(text, filterWords("weather"))).toBe(true);
    expect(matches(text, filterWords("  Forecast   CITY "))).toBe(true);
    expect(matches(text, filterWords("get_w"))).toBe(true);
    expect(matches(text, filterWords("forecast rain"))).toBe(false);
  });

  it("matches everything when blank, and reads a tool without a name, title or description", () => {
    expect(filterWords("   ")).toEqual([]);
    expect(matches(searchText(tool), [])).toBe(true);
    const bare = searchText({ name: null, title: null, description: null });
    expect(bare).toBe("");
    expect(matches(bare, filterWords("x"))).toBe(false);
  });

  it("keeps the items whose text holds every word, in their order, and all of them, the same array, when blank", () => {
    const items = ["a", "b", "c", "d"];
    const texts = ["get_weather\nforecast", "list_files", "weather_alerts\nstorms", "forecast_only"];
    expect(filterByText(items, texts, filterWords("weather"))).toEqual(["a", "c"]);
    expect(filterByText(items, texts, filterWords("forecast weather"))).toEqual(["a"]);
    expect(filterByText(items, texts, filterWords("rain"))).toEqual([]);
    expect(filterByText(items, texts, [])).toBe(items);
  });
});
