/// The page `sdrify tap` serves: it plays the medium, lists the lines, and while a key (Space, or F, J, K) or a
/// line is held shows that line for exactly as long as it is held, then moves to the next. A second key held before
/// the first is let go starts the next line over it (duets). Backspace undoes, ←/→ nudge the last cue's start
/// (with Shift its end) by 50 ms, B goes back 5 s, P pauses or plays, R replays the last cue, S saves. Closing the
/// page stops the server.
enum TapPage {
    static let html = #"""
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>sdrify tap</title>
        <style>
        body { font: 16px system-ui, sans-serif; margin: 0; background: #111; color: #ddd; display: flex; height: 100vh; }
        #left { flex: 3; display: flex; flex-direction: column; padding: 12px; gap: 8px; }
        #right { flex: 2; overflow-y: auto; padding: 12px; border-left: 1px solid #333; }
        video, audio { width: 100%; max-height: 60vh; background: #000; }
        #showing { min-height: 3em; font-size: 28px; text-align: center; color: #fff; }
        #help { color: #888; font-size: 13px; }
        ol { padding-left: 2em; } li { padding: 4px; cursor: pointer; user-select: none; border-radius: 4px; }
        li.next { outline: 1px solid #6af; } li.held { background: #264; color: #fff; } li.done { color: #8c8; }
        li .t { color: #888; font-size: 12px; margin-left: 8px; }
        button { font-size: 15px; padding: 6px 14px; } #status { color: #fc6; }
        </style></head>
        <body>
        <div id="left">
          <div id="player"></div>
          <div id="showing"></div>
          <div><button id="save">Save (S)</button> <span id="status"></span></div>
          <div id="help">Hold Space (or F, J, K), or a line, for as long as the line should show; a second key held before the
          first is let go overlaps the next line. Backspace: undo · ←/→: nudge the last start (Shift: its end) by 50 ms ·
          B: back 5 s · P: pause/play · R: replay the last line · S: save.</div>
        </div>
        <div id="right"><ol id="lines"></ol></div>
        <script>
        const state = { lines: [], cues: [], next: 0, held: new Map(), output: "" };
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
            li.className = (held ? "held " : "") + (cue ? "done " : "") + (i === state.next ? "next" : "");
            li.querySelector(".t").textContent = cue ? fmt(cue.start) + " – " + fmt(cue.end) : "";
          });
          showing.textContent = [...state.held.values()].map((h) => state.lines[h.line]).join(" / ");
        }

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
          state.cues = state.cues.filter((c) => c.line !== h.line);
          if (end > h.start) state.cues.push({ line: h.line, start: h.start, end });
          render();
        }

        function undo() {
          const last = state.cues.reduce((a, c) => (!a || c.start > a.start ? c : a), null);
          if (!last) return;
          state.cues = state.cues.filter((c) => c !== last);
          state.next = last.line;
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
          else if (e.code === "KeyP") media.paused ? media.play() : media.pause();
          else if (e.code === "KeyR") {
            const last = state.cues.reduce((a, c) => (!a || c.start > a.start ? c : a), null);
            if (last) { media.currentTime = Math.max(0, last.start - 1); media.play(); }
          } else if (e.code === "KeyS") save(false);
        });
        document.addEventListener("keyup", (e) => { if (holdKeys.has(e.code)) { e.preventDefault(); finish(e.code); } });
        document.addEventListener("pointerup", () => finish("pointer"));
        document.getElementById("save").addEventListener("click", () => save(false));
        window.addEventListener("pagehide", () => navigator.sendBeacon("/close"));

        (async () => {
          const s = await (await fetch("/session")).json();
          state.lines = s.lines; state.output = s.output;
          document.title = "sdrify tap: " + s.name;
          media = document.createElement(s.kind);
          media.src = "/media"; media.controls = true; media.preload = "auto";
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
