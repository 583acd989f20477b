extension PreviewPage {
    /// The page's icon set: common SF Symbol and `mdi:` names drawn as inline SVG.
    ///
    /// Real SF Symbols and Material Design Icons cannot ship in the binary (licences, size), so
    /// the page draws a recognisable stand-in for the names home-lab jobs use. A name is split
    /// into a base glyph and modifiers (`.circle`, `.fill`, `-outline`, `-circle`); a name the
    /// map does not know falls back to a badge with its initial and the full name as a tooltip.
    static let iconScript = #"""
        const GLYPHS = {
          "arrow.down": '<path d="M12 4.5v14M6 12.5l6 6 6-6"/>',
          "arrow.up": '<path d="M12 19.5v-14M6 11.5l6-6 6 6"/>',
          "arrow.clockwise": '<path d="M19 12a7 7 0 11-2.1-5"/><path d="M17.5 3.5v4h-4"/>',
          "sync": '<path d="M19 9a7.5 7.5 0 00-13.4-1.8M5 15a7.5 7.5 0 0013.4 1.8"/><path d="M5.2 3.5v4h4M18.8 20.5v-4h-4"/>',
          "checkmark": '<path d="M5 12.5l4.5 4.5L19 7.5"/>',
          "xmark": '<path d="M7 7l10 10M17 7L7 17"/>',
          "pause": '<path d="M9 6v12M15 6v12"/>',
          "play": '<path d="M8.5 5.5v13l10-6.5z" fill="currentColor"/>',
          "stop": '<rect x="7" y="7" width="10" height="10" rx="1.5" fill="currentColor"/>',
          "exclamationmark": '<path d="M12 5v9M12 18.5v.5"/>',
          "exclamationmark.triangle": '<path d="M12 3.8l9 15.7H3z"/><path d="M12 9.5v5M12 17.3v.2"/>',
          "questionmark": '<path d="M9 9a3 3 0 115 2.2c-1.2.8-2 1.5-2 3M12 18.5v.3"/>',
          "printer": '<path d="M7 9V4h10v5"/><rect x="3.5" y="9" width="17" height="8" rx="2"/><path d="M7 14h10v6H7z"/>',
          "printer3d": '<rect x="3.5" y="3.5" width="17" height="17" rx="2"/><path d="M3.5 8h17M10 8v3l2 2 2-2V8M7 17h10"/>',
          "cube": '<path d="M12 3l8 4.5v9L12 21l-8-4.5v-9z"/><path d="M4 7.5l8 4.5 8-4.5M12 12v9"/>',
          "washer": '<rect x="4.5" y="3" width="15" height="18" rx="2.5"/><path d="M4.5 7.5h15"/><circle cx="12" cy="14" r="4"/><path d="M7.5 5.2h.5"/>',
          "dryer": '<rect x="4.5" y="3" width="15" height="18" rx="2.5"/><path d="M4.5 7.5h15"/><circle cx="12" cy="14" r="4"/><path d="M10 14c.7-1 1.3 1 2 0s1.3 1 2 0"/>',
          "dishwasher": '<rect x="4.5" y="3" width="15" height="18" rx="2.5"/><path d="M4.5 7.5h15M8.5 11.5h7"/>',
          "oven": '<rect x="3.5" y="4" width="17" height="16" rx="2.5"/><path d="M3.5 8h17"/><rect x="7" y="11" width="10" height="6" rx="1"/>',
          "timer": '<circle cx="12" cy="13.5" r="7.5"/><path d="M12 13.5V9.5M10 2.5h4M12 2.5V6M18.2 6.8l1.4-1.4"/>',
          "clock": '<circle cx="12" cy="12" r="8.5"/><path d="M12 7.5V12l3 2"/>',
          "clock.xmark": '<path d="M20.5 12A8.5 8.5 0 1112 3.5"/><path d="M12 7.5V12l3 2M16.5 3.5l4 4M20.5 3.5l-4 4"/>',
          "hourglass": '<path d="M7 3h10M7 21h10M8 3v2.5c0 2.5 4 4 4 6.5s-4 4-4 6.5V21M16 3v2.5c0 2.5-4 4-4 6.5s4 4 4 6.5V21"/>',
          "thermometer": '<path d="M10 14.3V5a2 2 0 014 0v9.3a4 4 0 11-4 0z"/><path d="M12 9v7"/>',
          "flame": '<path d="M12 21c-3.9 0-6.5-2.6-6.5-6 0-3.5 2.7-5.2 3.5-9 2 1.2 3 3 3 4.8C13.3 9.5 14 8 14 6.5c2.7 2.2 4.5 5 4.5 8.5 0 3.4-2.6 6-6.5 6z"/>',
          "snowflake": '<path d="M12 3v18M4.2 7.5l15.6 9M4.2 16.5l15.6-9M9.5 4.5L12 7l2.5-2.5M9.5 19.5L12 17l2.5 2.5"/>',
          "bolt": '<path d="M13 2.5L5 13.5h6l-1 8 8-11h-6z"/>',
          "battery": '<rect x="3" y="7.5" width="16" height="9" rx="2"/><path d="M21 10.5v3"/><rect x="5" y="9.5" width="9" height="5" rx="1" fill="currentColor"/>',
          "powerplug": '<path d="M9 3v5M15 3v5M6.5 8h11v3a5.5 5.5 0 01-11 0zM12 16.5V21"/>',
          "gear": '<circle cx="12" cy="12" r="3.2"/><circle cx="12" cy="12" r="6.5"/><path d="M12 2.8v2.7M12 18.5v2.7M2.8 12h2.7M18.5 12h2.7M5.5 5.5l1.9 1.9M16.6 16.6l1.9 1.9M5.5 18.5l1.9-1.9M16.6 7.4l1.9-1.9"/>',
          "wrench": '<path d="M14.5 4a4.5 4.5 0 00-4.3 5.9L4 16.1V20h3.9l6.2-6.2A4.5 4.5 0 0020 9.5l-2.8 2.8-3.5-3.5L16.5 6A4.5 4.5 0 0014.5 4z"/>',
          "sun": '<circle cx="12" cy="12" r="4"/><path d="M12 2.5v2.5M12 19v2.5M2.5 12H5M19 12h2.5M5.3 5.3l1.8 1.8M16.9 16.9l1.8 1.8M5.3 18.7l1.8-1.8M16.9 7.1l1.8-1.8"/>',
          "moon": '<path d="M19.5 14.5A8 8 0 019.5 4.5a8 8 0 1010 10z"/>',
          "drop": '<path d="M12 3s6.5 7 6.5 11.5a6.5 6.5 0 01-13 0C5.5 10 12 3 12 3z"/>',
          "leaf": '<path d="M5 19c0-8 5-14 15-14 0 10-6 15-14 15"/><path d="M5 19l8-8"/>',
          "fan": '<circle cx="12" cy="12" r="1.6"/><path d="M12 10.4C11 6.5 12 3.5 15 3.5s3 4-3 6.9zM13.6 12c3.9-1 6.9 0 6.9 3s-4 3-6.9-3zM12 13.6c1 3.9 0 6.9-3 6.9s-3-4 3-6.9zM10.4 12c-3.9 1-6.9 0-6.9-3s4-3 6.9 3z"/>',
          "bell": '<path d="M6 16.5V11a6 6 0 0112 0v5.5l1.5 2h-15z"/><path d="M10 20.5a2 2 0 004 0"/>',
          "house": '<path d="M3.5 11L12 4l8.5 7"/><path d="M6 9.5V20h12V9.5"/><path d="M10 20v-5h4v5"/>',
          "car": '<path d="M3.5 16.5V12l2-5h13l2 5v4.5zM3.5 12h17"/><circle cx="7.5" cy="16.5" r="1.8"/><circle cx="16.5" cy="16.5" r="1.8"/>',
          "film": '<rect x="3.5" y="4.5" width="17" height="15" rx="2"/><path d="M7.5 4.5v15M16.5 4.5v15M3.5 9h4M3.5 15h4M16.5 9h4M16.5 15h4"/>',
          "tv": '<rect x="3" y="4.5" width="18" height="12" rx="2"/><path d="M8.5 20h7M12 16.5V20"/>',
          "music": '<path d="M9 18V5.5l10-2V16"/><circle cx="6.5" cy="18" r="2.5"/><circle cx="16.5" cy="16" r="2.5"/>',
          "tray.down": '<path d="M3.5 13.5h4.5l1.5 3h5l1.5-3h4.5V19a1.5 1.5 0 01-1.5 1.5h-14A1.5 1.5 0 013.5 19z"/><path d="M12 3v9M8.5 8.5L12 12l3.5-3.5"/>',
          "cloud.down": '<path d="M7 17.5a4.5 4.5 0 01-.5-9 6 6 0 0111.5 1.5 3.8 3.8 0 01-.5 7.5"/><path d="M12 11v9M9 17l3 3 3-3"/>',
          "server": '<rect x="3.5" y="4" width="17" height="7" rx="1.5"/><rect x="3.5" y="13" width="17" height="7" rx="1.5"/><path d="M7 7.5h.5M7 16.5h.5"/>',
          "robot.vacuum": '<circle cx="12" cy="12" r="8.5"/><circle cx="12" cy="12" r="3"/><path d="M8 6.8h8"/>',
          "cup": '<path d="M5 8.5h11v5a5 5 0 01-5 5h-1a5 5 0 01-5-5z"/><path d="M16 10h1.5a2.5 2.5 0 010 5H16M8 3.5v2M11 3.5v2"/>',
          "lightbulb": '<path d="M9 18h6M10 21h4M12 3a6 6 0 00-3.5 10.9c.6.5 1 1.2 1 2V16h5v-.1c0-.8.4-1.5 1-2A6 6 0 0012 3z"/>',
          "safari": '<circle cx="12" cy="12" r="8.5"/><path d="M15.5 8.5l-2 5-5 2 2-5z"/>',
          "link": '<path d="M10 14a4 4 0 005.7 0l3-3a4 4 0 00-5.7-5.7l-1 1M14 10a4 4 0 00-5.7 0l-3 3a4 4 0 005.7 5.7l1-1"/>',
          "magnifyingglass": '<circle cx="10.5" cy="10.5" r="6"/><path d="M15 15l5 5"/>',
          "trash": '<path d="M4.5 6.5h15M9.5 6.5V4h5v2.5M6.5 6.5l1 13.5h9l1-13.5"/>',
          "person": '<circle cx="12" cy="8" r="4"/><path d="M4.5 20.5a7.5 7.5 0 0115 0"/>',
          "lock": '<rect x="5" y="10.5" width="14" height="10" rx="2"/><path d="M8 10.5V7.5a4 4 0 018 0v3"/>',
          "wifi": '<path d="M3 9.5a13 13 0 0118 0M6 12.8a8.5 8.5 0 0112 0M9 16a4 4 0 016 0M12 19.3v.2"/>',
          "shippingbox": '<path d="M3.5 7.5L12 3.5l8.5 4v9L12 20.5l-8.5-4z"/><path d="M3.5 7.5l8.5 4 8.5-4M12 11.5v9M7.8 5.5l8.5 4"/>'
        };

        const GLYPH_ALIASES = {
          "arrow.down.to.line": "arrow.down", "arrow.down.doc": "arrow.down", "square.and.arrow.down": "tray.down",
          "tray.and.arrow.down": "tray.down", "tray.full": "tray.down", "icloud.and.arrow.down": "cloud.down",
          "icloud.and.arrow.up": "arrow.up", "square.and.arrow.up": "arrow.up", "arrow.up.doc": "arrow.up",
          "arrow.triangle.2.circlepath": "sync", "arrow.2.circlepath": "sync", "arrow.clockwise": "arrow.clockwise",
          "checkmark.seal": "checkmark", "xmark.octagon": "xmark", "exclamationmark.octagon": "exclamationmark",
          "exclamationmark.circle": "exclamationmark", "questionmark.circle": "questionmark",
          "printer.filled.and.paper": "printer", "cube.transparent": "cube", "cube.box": "cube", "shippingbox": "shippingbox",
          "washer": "washer", "dryer": "dryer", "dishwasher": "dishwasher", "oven": "oven", "stove": "oven",
          "microwave": "oven", "refrigerator": "dishwasher", "timer": "timer", "timer.square": "timer",
          "stopwatch": "timer", "clock": "clock", "alarm": "clock", "clock.badge.xmark": "clock.xmark",
          "clock.badge.checkmark": "clock", "hourglass": "hourglass", "hourglass.bottomhalf": "hourglass",
          "hourglass.tophalf": "hourglass", "thermometer": "thermometer", "thermometer.medium": "thermometer",
          "thermometer.high": "thermometer", "thermometer.sun": "thermometer", "flame": "flame", "heater.vertical": "flame",
          "snowflake": "snowflake", "bolt": "bolt", "bolt.car": "car", "bolt.horizontal": "bolt", "powerplug": "powerplug",
          "battery.100": "battery", "battery.75": "battery", "battery.50": "battery", "battery.25": "battery",
          "battery.100.bolt": "battery", "gearshape": "gear", "gearshape.2": "gear", "gear": "gear",
          "wrench": "wrench", "wrench.and.screwdriver": "wrench", "hammer": "wrench", "sun.max": "sun", "sun.min": "sun",
          "moon": "moon", "moon.stars": "moon", "drop": "drop", "humidity": "drop", "leaf": "leaf", "fan": "fan",
          "fan.ceiling": "fan", "bell": "bell", "bell.badge": "bell", "house": "house", "car": "car",
          "film": "film", "film.stack": "film", "tv": "tv", "display": "tv", "play.rectangle": "film",
          "music.note": "music", "music.note.list": "music", "server.rack": "server", "externaldrive": "server",
          "internaldrive": "server", "cup.and.saucer": "cup", "mug": "cup", "lightbulb": "lightbulb",
          "safari": "safari", "link": "link", "magnifyingglass": "magnifyingglass", "trash": "trash",
          "person": "person", "lock": "lock", "lock.open": "lock", "wifi": "wifi", "antenna.radiowaves.left.and.right": "wifi"
        };

        const MDI_ALIASES = {
          "download": "arrow.down", "download-box": "arrow.down", "cloud-download": "cloud.down", "tray-arrow-down": "tray.down",
          "upload": "arrow.up", "cloud-upload": "arrow.up", "sync": "sync", "refresh": "arrow.clockwise",
          "check": "checkmark", "check-bold": "checkmark", "check-all": "checkmark", "close": "xmark", "close-thick": "xmark",
          "alert": "exclamationmark.triangle", "alert-octagon": "exclamationmark", "help": "questionmark",
          "pause": "pause", "play": "play", "stop": "stop", "printer": "printer", "printer-3d": "printer3d",
          "printer-3d-nozzle": "printer3d", "printer-3d-nozzle-alert": "printer3d", "cube": "cube", "cube-outline": "cube",
          "package-variant": "shippingbox", "package-variant-closed": "shippingbox", "washing-machine": "washer",
          "washing-machine-alert": "washer", "tumble-dryer": "dryer", "dishwasher": "dishwasher", "stove": "oven",
          "toaster-oven": "oven", "microwave": "oven", "fridge": "dishwasher", "timer": "timer", "timer-sand": "hourglass",
          "timer-sand-complete": "hourglass", "clock": "clock", "clock-time-four": "clock", "alarm": "clock",
          "thermometer": "thermometer", "thermostat": "thermometer", "fire": "flame", "radiator": "flame",
          "snowflake": "snowflake", "lightning-bolt": "bolt", "flash": "bolt", "ev-station": "bolt",
          "battery": "battery", "battery-charging": "battery", "power-plug": "powerplug", "car-electric": "car",
          "car": "car", "cog": "gear", "cogs": "gear", "wrench": "wrench", "tools": "wrench", "weather-sunny": "sun",
          "solar-power": "sun", "weather-night": "moon", "water": "drop", "water-percent": "drop", "leaf": "leaf",
          "sprout": "leaf", "fan": "fan", "bell": "bell", "home": "house", "home-assistant": "house", "movie": "film",
          "television": "tv", "monitor": "tv", "music": "music", "server": "server", "nas": "server", "harddisk": "server",
          "robot-vacuum": "robot.vacuum", "coffee": "cup", "coffee-maker": "cup", "lightbulb": "lightbulb",
          "link": "link", "magnify": "magnifyingglass", "delete": "trash", "account": "person", "lock": "lock", "wifi": "wifi"
        };

        /** Parses an icon name into {glyph, circled, filled}; glyph null when unknown. */
        function parseIcon(name) {
          if (typeof name !== "string" || name.length === 0) return null;
          let circled = false, filled = false, base;
          if (name.startsWith("mdi:")) {
            base = name.slice(4).toLowerCase();
            if (base.endsWith("-outline")) base = base.slice(0, -8);
            if (base.endsWith("-circle") && !MDI_ALIASES[base]) { base = base.slice(0, -7); circled = true; filled = true; }
            return {glyph: MDI_ALIASES[base] || (GLYPHS[base] ? base : null), circled, filled};
          }
          const parts = name.split(".");
          while (parts.length > 1) {
            const last = parts[parts.length - 1];
            if (last === "fill") { filled = true; parts.pop(); }
            else if (last === "circle" || last === "square") { circled = true; parts.pop(); }
            else break;
          }
          base = parts.join(".");
          let glyph = GLYPH_ALIASES[base] || (GLYPHS[base] ? base : null);
          while (!glyph && base.includes(".")) {
            base = base.slice(0, base.lastIndexOf("."));
            glyph = GLYPH_ALIASES[base] || (GLYPHS[base] ? base : null);
          }
          return {glyph, circled, filled};
        }

        /** An element drawing `name` in `accent`; `onAccent` paints glyphs inside filled circles. */
        function iconElement(name, accent, onAccent) {
          const parsed = parseIcon(name);
          const box = document.createElement("span");
          box.className = "icon";
          box.style.color = accent;
          box.title = name || "";
          if (!parsed || !parsed.glyph) {
            box.classList.add("fallback");
            box.style.background = accent;
            box.style.color = onAccent;
            box.dataset.icon = name || "";
            const label = (name || "?").replace(/^mdi:/, "").replace(/[^A-Za-z0-9]/g, "");
            box.textContent = (label[0] || "?").toUpperCase();
            return box;
          }
          box.dataset.icon = name;
          box.dataset.glyph = parsed.glyph;
          const glyph = GLYPHS[parsed.glyph];
          let svg = '<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" ' +
            'stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">';
          if (parsed.circled) {
            if (parsed.filled) {
              svg += '<circle cx="12" cy="12" r="11" fill="currentColor" stroke="none"/>';
              svg += '<g transform="translate(12 12) scale(.6) translate(-12 -12)" stroke="' + onAccent +
                '" color="' + onAccent + '" stroke-width="3.2">' + glyph + '</g>';
            } else {
              svg += '<circle cx="12" cy="12" r="10" stroke-width="1.8"/>';
              svg += '<g transform="translate(12 12) scale(.6) translate(-12 -12)" stroke-width="3">' + glyph + '</g>';
            }
          } else {
            svg += glyph;
          }
          box.innerHTML = svg + "</svg>";
          return box;
        }
        """#
}
