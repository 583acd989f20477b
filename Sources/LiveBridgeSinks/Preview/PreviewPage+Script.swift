extension PreviewPage {
    /// The page's behaviour: poll `api/state`, build one section per activity, and animate the
    /// bars, percentages and countdowns every frame from the bridge's clock.
    ///
    /// Everything from the bridge goes into the DOM as text (`textContent`); colours are parsed
    /// into `#RRGGBB(AA)` before they reach a style, so content cannot inject markup or CSS.
    static let script = #"""
        const POLL_MS = 500;
        const NAMED_COLOURS = {
          red: "#FF3B30", orange: "#FF9500", yellow: "#FFCC00", green: "#34C759", blue: "#007AFF", purple: "#AF52DE",
          pink: "#FF2D55", indigo: "#5856D6", teal: "#5AC8FA", cyan: "#32ADE6", mint: "#00C7BE", brown: "#A2845E"
        };
        const DEFAULT_ACCENT = "#007AFF";
        const DEFAULT_CARD = "#1C1C1E";
        const OUTCOME_TEXT = {success: "Ended", failure: "Ended · failed", cancelled: "Ended · cancelled"};

        let snapshot = null;
        let serverNow = 0;
        let serverRate = 1;
        let receivedAt = 0;
        let drawnVersion = -1;
        let connected = false;
        let views = [];

        /** The bridge's clock now: its last `now` plus the time elapsed here since (at the clock's rate). */
        function bridgeNow() { return serverNow + serverRate * (performance.now() - receivedAt) / 1000; }

        /** What the phone draws the bar from: the stored content and the time of the last push. */
        function anchorOf(activity) {
          const c = activity.content || {};
          return {
            progress: typeof c.progress === "number" ? c.progress : 0,
            time: activity.anchorTime,
            endDate: typeof c.end_date === "number" ? c.end_date : null,
            live: c.live_progress === true
          };
        }

        function isGliding(anchor, t) {
          return anchor.live && anchor.endDate !== null && anchor.endDate > anchor.time &&
            t >= anchor.time && t < anchor.endDate;
        }

        /** Seconds the countdown shows: to end_date while gliding, else a static remaining_time. */
        function remainingSeconds(activity, t) {
          const anchor = anchorOf(activity);
          if (anchor.live && anchor.endDate !== null && anchor.endDate > anchor.time) {
            return t < anchor.endDate ? anchor.endDate - Math.max(t, anchor.time) : null;
          }
          const r = activity.content && activity.content.remaining_time;
          return typeof r === "number" && r >= 0 ? r : null;
        }

        function two(n) { return String(n).padStart(2, "0"); }
        function formatDuration(seconds) {
          const s = Math.max(0, Math.ceil(seconds - 1e-6));
          const h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60);
          return h > 0 ? h + ":" + two(m) + ":" + two(s % 60) : m + ":" + two(s % 60);
        }
        function formatClock(unix) {
          const d = new Date(unix * 1000);
          return two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
        }
        function formatAgo(seconds) {
          const s = Math.max(0, Math.floor(seconds));
          if (s < 60) return s + " s ago";
          if (s < 3600) return Math.floor(s / 60) + " min ago";
          return Math.floor(s / 3600) + " h " + Math.floor(s % 3600 / 60) + " min ago";
        }
        function percentText(p) { return Math.floor(p * 100 + 1e-9) + "%"; }

        /** A named colour or hex as "#RRGGBB" / "#RRGGBBAA", or null. */
        function parseColour(value) {
          if (typeof value !== "string") return null;
          const v = value.trim().toLowerCase();
          if (NAMED_COLOURS[v]) return NAMED_COLOURS[v];
          const m = /^#?([0-9a-f]{6}|[0-9a-f]{8})$/.exec(v);
          return m ? "#" + m[1].toUpperCase() : null;
        }
        function luminance(hex) {
          const channel = i => {
            const v = parseInt(hex.slice(i, i + 2), 16) / 255;
            return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
          };
          return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
        }
        /** Black or white, whichever contrasts more with `hex`. */
        function contrastOn(hex) {
          const l = luminance(hex);
          return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? "#000000" : "#FFFFFF";
        }
        function contrastRatio(a, b) {
          const la = luminance(a), lb = luminance(b);
          return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
        }
        /**
         * The card's colours. Text without text_color: black or white, whichever contrasts more.
         * An accent that would vanish into its background (a yellow bar on a yellow card, a black
         * icon in the always-dark island) is drawn in the text colour there instead.
         */
        function palette(content) {
          const accent = parseColour(content.accent_color) || DEFAULT_ACCENT;
          const background = parseColour(content.background_color);
          const base = (background || DEFAULT_CARD).slice(0, 7);
          const text = parseColour(content.text_color) || contrastOn(base);
          const cardAccent = contrastRatio(accent.slice(0, 7), base) < 1.5 ? text : accent;
          const islandAccent = contrastRatio(accent.slice(0, 7), "#000000") < 1.5 ? "#FFFFFF" : accent;
          return {
            accent: cardAccent, islandAccent, background, text,
            onAccent: contrastOn(cardAccent.slice(0, 7)), onIslandAccent: contrastOn(islandAccent.slice(0, 7))
          };
        }

        function el(tag, className, text) {
          const e = document.createElement(tag);
          if (className) e.className = className;
          if (text !== undefined && text !== null) e.textContent = String(text);
          return e;
        }
        function svgEl(tag, attributes) {
          const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
          for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
          return e;
        }

        function ring(accent) {
          const svg = svgEl("svg", {viewBox: "0 0 26 26", class: "ring"});
          svg.append(svgEl("circle", {cx: 13, cy: 13, r: 10, stroke: "rgba(255,255,255,.22)"}));
          const arc = svgEl("circle", {cx: 13, cy: 13, r: 10, stroke: accent, "stroke-linecap": "round",
            "stroke-dasharray": (2 * Math.PI * 10).toFixed(3)});
          svg.append(arc);
          return {svg, arc};
        }

        function buttonsOf(content) {
          const buttons = [];
          for (const [key, legacy, title] of [["url_action", "url", "Open"], ["secondary_url_action", "secondary_url", "More"]]) {
            const action = content[key];
            if (action && typeof action === "object") buttons.push({title: action.title || title, icon: action.icon});
            else if (typeof content[legacy] === "string") buttons.push({title, icon: null});
          }
          return buttons;
        }

        function changeChip(change) {
          const chip = el("span", "chip");
          const value = change.value;
          if (value === null) {
            chip.classList.add("cleared");
            chip.textContent = change.key;
            chip.title = change.key + " cleared (null)";
            return chip;
          }
          let text;
          if (change.key === "end_date" && typeof value === "number") text = formatClock(value);
          else if (change.key === "progress" && typeof value === "number") text = (value * 100).toFixed(1) + "%";
          else if (change.key === "remaining_time" && typeof value === "number") text = formatDuration(value);
          else if (typeof value === "boolean") text = value ? "on" : "off";
          else if (typeof value === "string") text = "“" + (value.length > 36 ? value.slice(0, 35) + "…" : value) + "”";
          else if (typeof value === "object") text = value.title ? "“" + value.title + "”" : "{…}";
          else text = String(value);
          chip.append(el("span", "key", change.key + " "), document.createTextNode(text));
          chip.title = change.key + ": " + JSON.stringify(value);
          return chip;
        }

        function logItem(entry) {
          const li = el("li");
          li.append(el("span", "t", formatClock(entry.time)));
          li.append(el("span", "k " + entry.kind, entry.kind));
          const changes = el("span", "c");
          changes.append(el("span", "why", entry.kind === "invalid" ? "not sent:" : entry.reason));
          if (entry.kind === "invalid") {
            for (const problem of entry.problems || []) changes.append(el("span", "chip", problem));
          } else {
            if (entry.state === "ended") changes.append(el("span", "chip", "state ended"));
            for (const change of entry.changes) {
              if (change.key !== "template") changes.append(changeChip(change));
            }
          }
          li.append(changes);
          return li;
        }

        function activitySection(activity) {
          const c = activity.content || {};
          const ended = activity.state === "ended";
          const pal = palette(c);
          const section = el("section", "activity " + activity.state);
          section.dataset.slug = activity.slug;
          section.dataset.state = activity.state;
          const stage = el("div", "stage");
          const view = {activity};

          if (ended) {
            stage.append(el("div", "island-gone", "Ended · no longer in the Dynamic Island"));
          } else {
            const island = el("div", "island");
            island.dataset.role = "island";
            if (c.icon) island.append(iconElement(c.icon, pal.islandAccent, pal.onIslandAccent));
            island.append(el("span", "itext", c.state || activity.name));
            view.islandEta = el("span", "ieta");
            view.islandEta.style.color = pal.islandAccent;
            island.append(view.islandEta);
            const r = ring(pal.islandAccent);
            view.ring = r.arc;
            island.append(r.svg);
            stage.append(island);
          }

          const card = el("div", "card" + (ended ? " ended" : ""));
          card.dataset.role = "card";
          if (pal.background) card.style.background = pal.background;
          card.style.color = pal.text;
          if (ended) card.append(el("span", "badge-ended", OUTCOME_TEXT[activity.outcome] || "Ended"));
          const row = el("div", "row");
          if (c.icon) row.append(iconElement(c.icon, pal.accent, pal.onAccent));
          row.append(el("div", "state", c.state || activity.name));
          view.pct = el("div", "pct");
          row.append(view.pct);
          card.append(row);
          const barRow = el("div", "barrow");
          const track = el("div", "track");
          view.fill = el("div", "fill");
          view.fill.style.background = pal.accent;
          track.append(view.fill);
          barRow.append(track);
          view.eta = el("div", "eta");
          barRow.append(view.eta);
          card.append(barRow);
          if (typeof c.subtitle === "string" && c.subtitle.length) card.append(el("div", "subtitle", c.subtitle));
          const buttons = buttonsOf(c);
          if (buttons.length) {
            const box = el("div", "buttons");
            for (const b of buttons) {
              const button = el("div", "button");
              if (b.icon) button.append(iconElement(b.icon, pal.text, pal.background || DEFAULT_CARD));
              button.append(el("span", null, b.title));
              box.append(button);
            }
            card.append(box);
          }
          stage.append(card);
          view.card = card;
          section.append(stage);

          const side = el("aside", "side");
          const head = el("div", "head");
          head.append(el("h2", null, activity.name), el("code", null, activity.slug));
          const pillClass = ended ? (activity.outcome === "failure" || activity.outcome === "cancelled" ? activity.outcome : "ended") : "ongoing";
          head.append(el("span", "pill " + pillClass, ended ? (activity.outcome || "ended") : "ongoing"));
          side.append(head);
          const counters = el("div", "counters");
          const counter = (n, label, cls) => {
            const span = el("span", cls);
            span.append(el("b", null, n), document.createTextNode(" " + label));
            return span;
          };
          counters.append(counter(activity.counters.pushes, activity.counters.pushes === 1 ? "push" : "pushes"));
          counters.append(counter(activity.counters.skipped, "skipped by the economy", "economy"));
          if (activity.counters.invalid) counters.append(counter(activity.counters.invalid, "invalid"));
          view.ago = el("span");
          counters.append(view.ago);
          side.append(counters);
          const log = el("ol", "log");
          for (const entry of activity.log.slice(0, 9)) log.append(logItem(entry));
          side.append(log);
          section.append(side);
          views.push(view);
          return section;
        }

        function stat(value, label, extra) {
          const box = el("div", "stat" + (extra ? " " + extra : ""));
          box.append(el("div", "n", value), el("div", "l", label));
          return box;
        }

        function renderTotals(data) {
          const totals = document.getElementById("totals");
          const ongoing = data.activities.filter(a => a.state === "ongoing").length;
          const boxes = [
            stat(ongoing + " / " + data.activities.length, "ongoing / shown"),
            stat(data.totals.pushes, "pushes sent"),
            stat(data.totals.skipped, "skipped by economy")
          ];
          if (data.budget) {
            const b = data.budget;
            const box = stat(b.limit === null ? String(b.used) : b.used + " / " + b.limit,
              b.limit === null ? "updates this month" : "monthly budget", "budget");
            if (b.limit !== null) {
              const bar = el("div", "bar"), fill = el("div");
              const share = Math.min(1, b.used / Math.max(1, b.limit));
              fill.style.width = (share * 100).toFixed(1) + "%";
              if (share > 0.8) fill.style.background = share >= 1 ? "var(--bad)" : "var(--warn)";
              bar.append(fill);
              box.append(bar);
            }
            boxes.push(box);
          }
          totals.replaceChildren(...boxes);
        }

        function render() {
          const data = snapshot;
          document.title = data.title;
          document.getElementById("title").textContent = data.title;
          document.getElementById("sink").textContent =
            "sink “" + data.sink + "” · what the phone shows, push by push";
          const board = document.getElementById("board");
          views = [];
          const sections = data.activities.map(activitySection);
          if (sections.length === 0) {
            sections.push(el("div", "empty", "No activities yet — each one appears here as soon as the bridge pushes it."));
          }
          board.replaceChildren(...sections);
          drawnVersion = data.version;
        }

        /** Moves every bar, percentage and countdown to the bridge's time now. */
        function tick() {
          if (!snapshot) return;
          const t = bridgeNow();
          document.body.dataset.now = t.toFixed(3);
          document.getElementById("clock").textContent = (connected ? "live · " : "reconnecting · ") + formatClock(t);
          for (const view of views) {
            const anchor = anchorOf(view.activity);
            const p = shownProgress(anchor, t);
            const remaining = remainingSeconds(view.activity, t);
            view.card.dataset.shown = p.toFixed(6);
            view.card.dataset.motion = isGliding(anchor, t) ? "gliding" : "static";
            view.fill.style.width = (p * 100).toFixed(3) + "%";
            view.pct.textContent = percentText(p);
            view.eta.textContent = remaining === null ? "" : formatDuration(remaining);
            if (view.islandEta) {
              view.islandEta.textContent = remaining === null ? percentText(p) : formatDuration(remaining);
              const circumference = 2 * Math.PI * 10;
              view.ring.setAttribute("stroke-dashoffset", (circumference * (1 - p)).toFixed(3));
            }
            view.ago.textContent = "last push " + formatAgo(t - view.activity.anchorTime);
          }
        }

        function setConnected(value) {
          connected = value;
          document.getElementById("conn").classList.toggle("down", !value);
        }

        async function poll() {
          try {
            const response = await fetch("api/state", {cache: "no-store"});
            if (!response.ok) throw new Error("HTTP " + response.status);
            const data = await response.json();
            snapshot = data;
            serverNow = data.now;
            serverRate = typeof data.rate === "number" && data.rate > 0 ? data.rate : 1;
            receivedAt = performance.now();
            setConnected(true);
            renderTotals(data);
            if (data.version !== drawnVersion) render();
            tick();
          } catch (error) {
            setConnected(false);
          }
          setTimeout(poll, connected ? POLL_MS : 2000);
        }

        function frame() { tick(); requestAnimationFrame(frame); }
        poll();
        requestAnimationFrame(frame);
        """#
}
