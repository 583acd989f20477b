extension PreviewPage {
    /// The page's stylesheet: a dark dashboard; each activity on a lock-screen "stage" with its
    /// Dynamic Island pill and Lock Screen card, its push log beside it.
    static let style = #"""
        :root {
          --page: #0b0d12; --panel: #141821; --panel-edge: #232938; --ink: #e9edf5; --muted: #8d97ab;
          --faint: #5d667a; --good: #34C759; --warn: #FF9500; --bad: #FF3B30; --link: #64a8ff;
          font-family: -apple-system, BlinkMacSystemFont, "SF Pro Text", "Inter", "Segoe UI", Roboto,
            "Helvetica Neue", "Liberation Sans", "DejaVu Sans", sans-serif;
          font-feature-settings: "tnum" 1, "cv11" 1;
          color-scheme: dark;
        }
        * { box-sizing: border-box; }
        html, body { margin: 0; background: var(--page); color: var(--ink); }
        body {
          min-height: 100vh;
          background: radial-gradient(1200px 600px at 10% -10%, #1b2233 0%, transparent 60%),
            radial-gradient(900px 500px at 100% 0%, #1a1730 0%, transparent 55%), var(--page);
        }
        header.top {
          display: flex; align-items: center; gap: 24px; flex-wrap: wrap;
          padding: 22px 32px 18px; border-bottom: 1px solid var(--panel-edge);
        }
        .brand { display: flex; align-items: center; gap: 12px; }
        .brand .mark {
          width: 34px; height: 34px; border-radius: 10px; display: grid; place-items: center;
          background: linear-gradient(135deg, #0a84ff, #5e5ce6); box-shadow: 0 4px 18px rgba(10, 132, 255, .35);
        }
        .brand .mark svg { width: 20px; height: 20px; }
        .brand h1 { font-size: 19px; font-weight: 650; margin: 0; letter-spacing: -.01em; }
        .brand .sub { color: var(--muted); font-size: 13px; margin-top: 2px; }
        .totals { display: flex; gap: 10px; margin-left: auto; flex-wrap: wrap; }
        .stat {
          background: var(--panel); border: 1px solid var(--panel-edge); border-radius: 12px;
          padding: 8px 14px; min-width: 92px;
        }
        .stat .n { font-size: 18px; font-weight: 650; letter-spacing: -.01em; }
        .stat .l { font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .06em; }
        .stat.budget .bar { height: 4px; border-radius: 2px; background: #262c3a; margin-top: 6px; overflow: hidden; }
        .stat.budget .bar > div { height: 100%; background: var(--good); }
        .conn { display: flex; align-items: center; gap: 8px; color: var(--muted); font-size: 12px; }
        .conn .dot { width: 8px; height: 8px; border-radius: 50%; background: var(--good);
          box-shadow: 0 0 0 3px rgba(52, 199, 89, .18); }
        .conn.down .dot { background: var(--bad); box-shadow: 0 0 0 3px rgba(255, 59, 48, .2); }
        main { padding: 24px 32px 40px; display: flex; flex-direction: column; gap: 22px; }
        .empty { color: var(--muted); text-align: center; padding: 80px 20px; font-size: 15px; }
        .activity {
          display: grid; grid-template-columns: 440px minmax(0, 1fr); gap: 0;
          background: var(--panel); border: 1px solid var(--panel-edge); border-radius: 22px; overflow: hidden;
        }
        .stage {
          position: relative; padding: 18px 22px 24px; display: flex; flex-direction: column; align-items: center;
          gap: 16px; min-height: 210px;
          background: radial-gradient(120% 90% at 20% 0%, #3a4d8f 0%, transparent 60%),
            radial-gradient(100% 80% at 100% 100%, #7a3f8f 0%, transparent 55%), linear-gradient(160deg, #1d2540, #2a1d3d);
        }
        .activity.ended .stage { filter: saturate(.55); }
        .island {
          background: #000; color: #fff; border-radius: 24px; height: 40px; min-width: 230px; max-width: 100%;
          display: flex; align-items: center; gap: 10px; padding: 0 8px 0 9px;
          box-shadow: 0 6px 20px rgba(0, 0, 0, .45);
        }
        .island .icon { width: 24px; height: 24px; }
        .island .itext { flex: 1; font-size: 13px; font-weight: 600; white-space: nowrap; overflow: hidden;
          text-overflow: ellipsis; max-width: 190px; }
        .island .ieta { font-size: 13px; font-weight: 600; font-variant-numeric: tabular-nums; }
        .island .ring { width: 26px; height: 26px; transform: rotate(-90deg); }
        .island .ring circle { fill: none; stroke-width: 3.2; }
        .island-gone {
          height: 40px; display: flex; align-items: center; color: rgba(255, 255, 255, .55); font-size: 12px;
          border: 1px dashed rgba(255, 255, 255, .25); border-radius: 22px; padding: 0 14px;
        }
        .card {
          position: relative; width: 100%; border-radius: 22px; padding: 14px 16px 14px;
          background: rgba(28, 28, 30, .78); color: #fff;
          box-shadow: 0 10px 30px rgba(0, 0, 0, .35); backdrop-filter: blur(18px);
        }
        .card.ended { opacity: .62; }
        .card .row { display: flex; align-items: center; gap: 10px; }
        .card .icon { width: 30px; height: 30px; flex: none; }
        .card .state { font-size: 17px; font-weight: 650; flex: 1; min-width: 0; letter-spacing: -.01em;
          white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .card .pct { font-size: 17px; font-weight: 650; font-variant-numeric: tabular-nums; }
        .card .barrow { display: flex; align-items: center; gap: 10px; margin-top: 12px; }
        .card .track { flex: 1; height: 7px; border-radius: 4px; overflow: hidden; position: relative; }
        .card .track::before { content: ""; position: absolute; inset: 0; background: currentColor; opacity: .2; }
        .card .fill { position: relative; height: 100%; border-radius: 4px; width: 0; }
        .card .eta { font-size: 13px; font-weight: 600; font-variant-numeric: tabular-nums; opacity: .85; }
        .card .subtitle { font-size: 13px; margin-top: 9px; opacity: .78; white-space: nowrap; overflow: hidden;
          text-overflow: ellipsis; }
        .card .buttons { display: flex; gap: 8px; margin-top: 12px; }
        .card .button {
          flex: 1; display: flex; align-items: center; justify-content: center; gap: 6px; font-size: 13px;
          font-weight: 600; border-radius: 12px; padding: 7px 10px; background: rgba(255, 255, 255, .14);
        }
        .card .button .icon { width: 16px; height: 16px; }
        .card .badge-ended {
          position: absolute; top: -9px; right: 14px; font-size: 11px; font-weight: 700; letter-spacing: .05em;
          text-transform: uppercase; background: #3a3a3c; color: #fff; border-radius: 8px; padding: 3px 8px;
        }
        .icon { display: inline-grid; place-items: center; }
        .icon svg { width: 100%; height: 100%; display: block; }
        .icon.fallback {
          border-radius: 8px; font-weight: 700; font-size: 14px; line-height: 1;
        }
        .side { padding: 18px 22px 18px; display: flex; flex-direction: column; min-width: 0; }
        .side .head { display: flex; align-items: baseline; gap: 10px; flex-wrap: wrap; }
        .side h2 { font-size: 16px; font-weight: 650; margin: 0; }
        .side code { font-size: 12px; color: var(--muted); font-family: "DejaVu Sans Mono", ui-monospace, monospace; }
        .pill { font-size: 11px; font-weight: 700; border-radius: 999px; padding: 2px 9px; text-transform: uppercase;
          letter-spacing: .05em; }
        .pill.ongoing { background: rgba(52, 199, 89, .16); color: #5fe07f; }
        .pill.ended { background: rgba(142, 142, 147, .2); color: #c7c7cc; }
        .pill.failure { background: rgba(255, 59, 48, .18); color: #ff8178; }
        .pill.cancelled { background: rgba(255, 149, 0, .18); color: #ffb44d; }
        .counters { display: flex; gap: 18px; margin: 10px 0 12px; font-size: 13px; color: var(--muted); flex-wrap: wrap; }
        .counters b { color: var(--ink); font-weight: 650; font-variant-numeric: tabular-nums; }
        .counters .economy b { color: #7fd4a0; }
        ol.log { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 6px;
          max-height: 232px; overflow: hidden; }
        ol.log li { display: grid; grid-template-columns: 62px 74px minmax(0, 1fr); gap: 8px; align-items: start;
          font-size: 12px; }
        ol.log .t { color: var(--faint); font-variant-numeric: tabular-nums; padding-top: 2px; }
        ol.log .k { font-weight: 700; font-size: 10.5px; text-transform: uppercase; letter-spacing: .05em;
          border-radius: 6px; padding: 3px 0; text-align: center; }
        .k.seed { background: rgba(10, 132, 255, .18); color: #6cb2ff; }
        .k.update { background: rgba(255, 255, 255, .08); color: #c9d1e0; }
        .k.final { background: rgba(52, 199, 89, .16); color: #5fe07f; }
        .k.end { background: rgba(142, 142, 147, .2); color: #d1d1d6; }
        .k.invalid { background: rgba(255, 59, 48, .18); color: #ff8178; }
        ol.log .c { display: flex; flex-wrap: wrap; gap: 4px; min-width: 0; }
        .why { color: var(--muted); padding: 2px 2px 0 0; }
        .chip { background: #1d2330; border: 1px solid #2a3142; border-radius: 6px; padding: 1px 6px;
          white-space: nowrap; max-width: 100%; overflow: hidden; text-overflow: ellipsis; }
        .chip .key { color: var(--muted); }
        .chip.cleared { color: var(--faint); text-decoration: line-through; }
        footer { color: var(--faint); font-size: 12px; padding: 0 32px 28px; line-height: 1.5; }
        @media (max-width: 900px) { .activity { grid-template-columns: 1fr; } }
        """#
}
