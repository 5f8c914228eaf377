/// The page `sdrify tap` serves: it plays the medium, lists the lines, and while a key (Space, or F, J, K) or a
/// line is held shows that line for exactly as long as it is held, then moves to the next. A second key held before
/// the first is let go starts the next line over it (duets). Backspace undoes, ←/→ nudge the last cue's start
/// (with Shift its end) by 50 ms, B goes back 5 s, P pauses or plays, R replays the last cue, S saves. Its own
/// controls: a play/pause button and a seek bar with each timed line as a block on it (a click jumps there); the
/// line being held is shown large, the line timed last is marked in the list. It tells the server it is open every
/// 30 s (`/alive`); closing the page stops the server.
enum TapPage {
    static let html = #"""
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>sdrify tap</title>
        <style>
        body { font: 16px system-ui, sans-serif; margin: 0; background: #111; color: #ddd; display: flex; height: 100vh; }
        #left { flex: 3; display: flex; flex-direction: column; padding: 12px; gap: 8px; }
        #right { flex: 2; overflow-y: auto; padding: 12px; border-left: 1px solid #333; }
        video, audio { width: 100%; max-height: 60vh; background: #000; }
        #showing { min-height: 2.4em; font-size: 44px; font-weight: 600; text-align: center; color: #fff; }
        #controls { display: flex; align-items: center; gap: 10px; }
        #play { min-width: 90px; } #clock { font-variant-numeric: tabular-nums; color: #aaa; min-width: 110px; }
        #bar { position: relative; flex: 1; height: 28px; background: #2a2a2a; border-radius: 4px; cursor: pointer; }
        #bar .done { position: absolute; top: 0; bottom: 0; left: 0; background: #3a3a3a; border-radius: 4px; pointer-events: none; }
        #bar .cue { position: absolute; background: #4a8; border-radius: 3px; min-width: 3px; }
        #bar .cue.last { background: #fc6; } #bar .head { position: absolute; top: 0; bottom: 0; width: 2px; background: #fff; pointer-events: none; }
        #help { color: #888; font-size: 13px; }
        ol { padding-left: 2em; } li { padding: 4px; cursor: pointer; user-select: none; border-radius: 4px; }
        li.next { outline: 1px solid #6af; } li.held { background: #264; color: #fff; } li.done { color: #8c8; }
        li.last { background: #553; color: #fff; }
        li .t { color: #888; font-size: 12px; margin-left: 8px; }
        button { font-size: 15px; padding: 6px 14px; } #status { color: #fc6; }
        </style></head>
        <body>
        <div id="left">
          <div id="player"></div>
          <div id="controls"><button id="play">▶ Play</button><span id="clock">0:00.00</span>
            <div id="bar" title="click: go there; a block: its line"><div class="done"></div><div class="head"></div></div></div>
          <div id="showing"></div>
          <div><button id="save">Save (S)</button> <span id="status"></span></div>
          <div id="help">Hold Space (or F, J, K), or a line, for as long as the line should show; a second key held before the
          first is let go overlaps the next line. Backspace: undo · ←/→: nudge the last start (Shift: its end) by 50 ms ·
          B: back 5 s · P: pause/play · R: replay the last line · S: save.</div>
        </div>
        <div id="right"><ol id="lines"></ol></div>
        <script>
        const state = { lines: [], cues: [], next: 0, held: new Map(), output: "", last: null };
        window.tapState = state;
        let media;
        const holdKeys = new Set(["Space", "KeyF", "KeyJ", "KeyK"]);
        const list = document.getElementById("lines"), showing = document.getElementById("showing");
        const status = (t) => { document.getElementById("status").textContent = t; };
        const fmt = (s) => (Math.floor(s / 60) + ":" + (s % 60).toFixed(2).padStart(5, "0"));

        function render() {
          list.querySelectorAll("li").forEach((li, i) => {
            const cue = state.cues.find((c) => c.line === i);
            const held = [...state.held.values()].some((h) => h.line === i);
            li.className = (held ? "held " : "") + (cue ? "done " : "") + (i === state.next ? "next " : "") + (i === state.last ? "last" : "");
            li.querySelector(".t").textContent = cue ? fmt(cue.start) + " – " + fmt(cue.end) : "";
          });
          showing.textContent = [...state.held.values()].map((h) => state.lines[h.line]).join(" / ");
          renderBar();
        }

        // The seek bar: each timed line a block where it shows (a click on it jumps to its start), the play head.
        const bar = document.getElementById("bar");
        function renderBar() {
          const length = media && isFinite(media.duration) && media.duration > 0 ? media.duration : 0;
          bar.querySelectorAll(".cue").forEach((b) => b.remove());
          if (!length) return;
          // Overlapping lines (a duet) in lanes: each block in the first lane free at its start.
          const lanes = [], placed = [...state.cues].sort((a, b) => a.start - b.start).map((c) => {
            let lane = lanes.findIndex((end) => end <= c.start);
            if (lane < 0) { lane = lanes.length; lanes.push(0); }
            lanes[lane] = c.end;
            return [c, lane];
          });
          const laneHeight = 18 / Math.max(1, lanes.length);
          for (const [c, lane] of placed) {
            const b = document.createElement("div");
            b.className = "cue" + (c.line === state.last ? " last" : "");
            b.style.top = (5 + lane * laneHeight) + "px";
            b.style.height = (laneHeight - 1) + "px";
            b.style.left = (100 * c.start / length) + "%";
            b.style.width = (100 * (c.end - c.start) / length) + "%";
            b.title = state.lines[c.line];
            b.dataset.line = c.line;
            b.addEventListener("click", (e) => { e.stopPropagation(); media.currentTime = c.start; });
            bar.appendChild(b);
          }
          tick();
        }
        function tick() {
          if (!media) return;
          const length = isFinite(media.duration) && media.duration > 0 ? media.duration : 0;
          const at = length ? 100 * media.currentTime / length : 0;
          bar.querySelector(".done").style.width = at + "%";
          bar.querySelector(".head").style.left = at + "%";
          document.getElementById("clock").textContent = fmt(media.currentTime) + (length ? " / " + fmt(length) : "");
          document.getElementById("play").textContent = media.paused ? "▶ Play" : "❚❚ Pause";
        }
        bar.addEventListener("click", (e) => {
          const r = bar.getBoundingClientRect();
          if (media && isFinite(media.duration)) media.currentTime = Math.max(0, Math.min(1, (e.clientX - r.left) / r.width)) * media.duration;
        });
        const playPause = () => { media.paused ? media.play() : media.pause(); };
        document.getElementById("play").addEventListener("click", (e) => { playPause(); e.currentTarget.blur(); });

        function begin(source, line) {
          if (state.held.has(source) || line >= state.lines.length) return;
          state.held.set(source, { line, start: media.currentTime });
          state.next = Math.max(state.next, line + 1);
          render();
        }

        function finish(source) {
          const h = state.held.get(source);
          if (!h) return;
          state.held.delete(source);
          const end = media.currentTime;
          if (end > h.start) {  // a hold of no time (a click on a timed line) keeps the timing it has
            state.cues = state.cues.filter((c) => c.line !== h.line);
            state.cues.push({ line: h.line, start: h.start, end });
            state.last = h.line;
          }
          render();
        }

        function undo() {
          const last = state.cues.reduce((a, c) => (!a || c.start > a.start ? c : a), null);
          if (!last) return;
          state.cues = state.cues.filter((c) => c !== last);
          state.next = last.line;
          state.last = null;
          render();
        }

        function nudge(delta, end) {
          const last = state.cues.reduce((a, c) => (!a || c.start > a.start ? c : a), null);
          if (!last) return;
          if (end) last.end = Math.max(last.start + 0.05, last.end + delta);
          else last.start = Math.min(Math.max(0, last.start + delta), last.end - 0.05);
          render();
        }

        async function save(overwrite) {
          const cues = [...state.cues].sort((a, b) => a.start - b.start);
          const r = await fetch("/save", { method: "POST", headers: { "Content-Type": "application/json" },
                                           body: JSON.stringify({ cues, overwrite }) });
          const body = await r.json();
          if (r.status === 409) {
            const whose = body.madeBy === "sdrify" ? " (an earlier save)" : " and sdrify did not make it: it may be an original";
            if (window.confirm(body.exists + " exists" + whose + ". Replace it?")) return save(true);
            status("not saved: " + body.exists + " exists");
            return body;
          }
          status(r.ok ? "saved " + body.saved + " (" + body.cues + " lines)" : "not saved: " + body.error);
          return body;
        }
        window.tapSave = save;

        document.addEventListener("keydown", (e) => {
          if (e.repeat) { if (holdKeys.has(e.code)) e.preventDefault(); return; }
          if (holdKeys.has(e.code)) { e.preventDefault(); begin(e.code, state.next); return; }
          if (e.code === "Backspace") { e.preventDefault(); undo(); }
          else if (e.code === "ArrowLeft" || e.code === "ArrowRight") { e.preventDefault(); nudge(e.code === "ArrowLeft" ? -0.05 : 0.05, e.shiftKey); }
          else if (e.code === "KeyB") media.currentTime = Math.max(0, media.currentTime - 5);
          else if (e.code === "KeyP") playPause();
          else if (e.code === "KeyR") {
            const last = state.cues.reduce((a, c) => (!a || c.start > a.start ? c : a), null);
            if (last) { media.currentTime = Math.max(0, last.start - 1); media.play(); }
          } else if (e.code === "KeyS") save(false);
        });
        document.addEventListener("keyup", (e) => { if (holdKeys.has(e.code)) { e.preventDefault(); finish(e.code); } });
        document.addEventListener("pointerup", () => finish("pointer"));
        document.getElementById("save").addEventListener("click", () => save(false));
        window.addEventListener("pagehide", () => navigator.sendBeacon("/close"));
        // The server stops by itself when no page has said it is open for a while (a browser killed says nothing).
        setInterval(() => fetch("/alive", { method: "POST" }).catch(() => {}), 30000);

        (async () => {
          const s = await (await fetch("/session")).json();
          state.lines = s.lines; state.output = s.output;
          document.title = "sdrify tap: " + s.name;
          media = document.createElement(s.kind);
          media.src = "/media"; media.preload = "auto";
          for (const ev of ["timeupdate", "play", "pause", "seeked"]) media.addEventListener(ev, tick);
          media.addEventListener("loadedmetadata", renderBar);
          media.addEventListener("click", playPause);
          if (s.kind === "audio") media.style.display = "none";  // the bar and the button are its controls
          document.getElementById("player").appendChild(media);
          s.lines.forEach((text, i) => {
            const li = document.createElement("li");
            li.textContent = text;
            const t = document.createElement("span"); t.className = "t"; li.appendChild(t);
            li.addEventListener("pointerdown", (e) => { e.preventDefault(); begin("pointer", i); });
            list.appendChild(li);
          });
          render();
          state.ready = true;
        })();
        </script>
        </body></html>
        """#
}
