/*
 * The report's replay player: watch a game in the page, as in the pygame viewer.
 *
 * One file, no framework, no network: it works from file:// and any static host. It looks
 * for <section id="player">, builds a canvas, the controls and a status line inside it, and
 * shows the games listed on the page: the elements with `data-game="<id>"` (and, when a
 * replay was kept, `data-frames="games/<file>.js"`) that are not hidden, in document order.
 * `#game=<id>` in the address opens a game.
 *
 * A frame file is a script written by Python (pacman/frames.py, docs/frames-format.md) that
 * calls pacmanArenaFrames({...}): every state of the game as a few integers, so nothing here
 * re-implements the rules, and stepping back shows exactly the frame shown before.
 *
 * Drawing follows pacman/display/render.py and scene.py (colours, shapes, Pacman's mouth,
 * ghosts' eyes, scared and blinking ghosts); the controls follow pacman/display/controls.py
 * (the same commands, speeds and rules: stepping pauses, space at the end plays again).
 *
 * The keys act while the player is on screen or holds the focus, so that further down a long
 * list of games they scroll the page as usual.
 *
 * For tests and scripts the section carries data-state (empty|loading|ready|playing|error),
 * data-game, data-move, data-moves and data-speed, and holds a .player-status element.
 */
(function () {
  "use strict";

  var FORMAT = "pacman-arena-frames";
  var VERSION = 1;
  var FRAME_HEAD = 4; // score, agent who moved, action, cell eaten
  var AGENT_FIELDS = 4; // doubled x, doubled y, direction, scared timer

  // Playback, as pacman/display/controls.py and viewer.py.
  var SPEEDS = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64];
  var NORMAL_SPEED = 3;
  var FRAME_TIME = 0.1; // seconds per move at 1x (the viewer's default)
  var MAX_SLIDE = 1.01; // farther than a cell is a jump (an eaten ghost sent home)

  // Pictures: the colours, blinking and mouth come from assets/palette.js, which the report
  // writes from pacman/display/palette.py (the pygame renderer's own), so they have one home.
  var PALETTE = window.pacmanArenaPalette || null;
  var COLORS = PALETTE || {};
  var GHOST_COLORS = PALETTE ? PALETTE.ghosts : [];
  var MOUTH_OPEN = PALETTE ? PALETTE.mouthOpen : 0;
  var MOUTH_SHUT = PALETTE ? PALETTE.mouthShut : 0;
  var BLINK_THRESHOLD = PALETTE ? PALETTE.blinkThreshold : 0;
  var MAX_CELL = 40;
  var MIN_CELL = 4;
  var CACHED_GAMES = 16; // decoded games kept, for going back and forth along the list
  var VECTORS = { North: [0, 1], South: [0, -1], East: [1, 0], West: [-1, 0], Stop: [0, 0] };
  var ENDINGS = ["win", "loss", "move_limit"];

  var KEYS = {
    " ": "pause",
    ArrowRight: "forward",
    ArrowLeft: "back",
    Home: "start",
    End: "end",
    "+": "faster",
    "=": "faster",
    "-": "slower",
    r: "restart",
    n: "next",
    p: "previous",
    h: "help"
  };

  var HELP = [
    ["space", "play / pause (at the end: play again)"],
    ["\u2192 / \u2190", "one move forward / back (pauses)"],
    ["Home / End", "first / last move"],
    ["+ / \u2212", "faster / slower"],
    ["r", "restart"],
    ["n / p", "next / previous game of the list"],
    ["h", "this help"]
  ];

  // What frame files hand over: a script calls pacmanArenaFrames(data) while it runs, and
  // document.currentScript says which script element that is.
  var deliveries = new WeakMap();
  window.pacmanArenaFrames = function (data) {
    var script = document.currentScript;
    if (script) {
      deliveries.set(script, data);
    }
  };

  // --- frame data --------------------------------------------------------------------------

  function isInt(value) {
    return typeof value === "number" && Number.isInteger(value);
  }

  function invalid(key, expected) {
    return new Error("key '" + key + "': expected " + expected);
  }

  /** A frame file's data, checked, with what drawing needs precomputed; throws naming the key. */
  function decode(data, wanted) {
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      throw new Error("expected a JSON object");
    }
    if (data.format !== FORMAT) {
      throw invalid("format", '"' + FORMAT + '"');
    }
    if (data.version !== VERSION) {
      throw invalid("version", VERSION + " (this player reads version " + VERSION + ")");
    }
    if (data.game !== wanted) {
      throw invalid("game", JSON.stringify(wanted) + " (the file is for another game)");
    }
    var layout = data.layout;
    if (!layout || typeof layout !== "object" || !Array.isArray(layout.rows)) {
      throw invalid("layout", "an object with name, width, height and rows");
    }
    var width = layout.width;
    var height = layout.height;
    if (!isInt(width) || !isInt(height) || width < 1 || height < 1 || width * height > 65536) {
      throw invalid("layout.width/height", "positive integers (at most 65536 cells)");
    }
    if (layout.rows.length !== height) {
      throw invalid("layout.rows", height + " rows");
    }
    var walls = new Uint8Array(width * height);
    var eatenAt = new Float64Array(width * height).fill(Infinity);
    var food = [];
    var capsules = [];
    layout.rows.forEach(function (row, r) {
      if (typeof row !== "string" || row.length !== width || /[^%.o ]/.test(row)) {
        throw invalid("layout.rows[" + r + "]", width + " characters of '%', '.', 'o', ' '");
      }
      var y = height - 1 - r;
      for (var x = 0; x < width; x++) {
        var ch = row.charAt(x);
        var cell = x + y * width;
        if (ch === "%") walls[cell] = 1;
        else if (ch === ".") food.push(cell);
        else if (ch === "o") capsules.push(cell);
      }
    });
    var directions = data.directions;
    if (!Array.isArray(directions) || !directions.every(function (d) {
      return Object.prototype.hasOwnProperty.call(VECTORS, d);
    })) {
      throw invalid("directions", "a list of direction names");
    }
    var agents = data.agents;
    if (!Array.isArray(agents) || agents.length < 1 || !agents.every(function (a) {
      return a && typeof a.name === "string" && (a.kind === "pacman" || a.kind === "ghost");
    })) {
      throw invalid("agents", "a list of {name, kind}");
    }
    var frames = data.frames;
    if (!Array.isArray(frames) || frames.length < 1) {
      throw invalid("frames", "a list of frames, the start first");
    }
    var size = FRAME_HEAD + AGENT_FIELDS * agents.length;
    var foodOrCapsule = new Uint8Array(width * height);
    food.concat(capsules).forEach(function (cell) { foodOrCapsule[cell] = 1; });
    frames.forEach(function (frame, k) {
      if (!Array.isArray(frame) || frame.length !== size || !frame.every(isInt)) {
        throw invalid("frames[" + k + "]", size + " integers");
      }
      if (k > 0 && (frame[1] < 0 || frame[1] >= agents.length ||
                    frame[2] < 0 || frame[2] >= directions.length)) {
        throw invalid("frames[" + k + "]", "an agent index and an action code");
      }
      for (var i = 0; i < agents.length; i++) {
        var at = FRAME_HEAD + AGENT_FIELDS * i;
        if (frame[at] < 0 || frame[at] > 2 * (width - 1) || frame[at + 1] < 0 ||
            frame[at + 1] > 2 * (height - 1) || frame[at + 2] < 0 ||
            frame[at + 2] >= directions.length || frame[at + 3] < 0) {
          throw invalid("frames[" + k + "]", "agent " + i + " on the board");
        }
      }
      var eaten = frame[3];
      if (eaten !== -1) {
        if (k === 0 || eaten < 0 || eaten >= width * height || !foodOrCapsule[eaten] ||
            eatenAt[eaten] !== Infinity) {
          throw invalid("frames[" + k + "]", "-1 or a cell with food or a capsule not yet eaten");
        }
        eatenAt[eaten] = k;
      }
    });
    if (typeof data.outcome !== "string") {
      throw invalid("outcome", "a string");
    }
    // Pacman's mouth and chewing, as pacman/display/timeline.py derives them: he faces his
    // last real direction (West at the start), and each move to another cell chews once.
    var facings = ["West"];
    var chews = [0];
    for (var k = 1; k < frames.length; k++) {
      var facing = facings[k - 1];
      var chew = chews[k - 1];
      if (frames[k][1] === 0) {
        var direction = directions[frames[k][FRAME_HEAD + 2]];
        if (direction !== "Stop") facing = direction;
        if (frames[k][FRAME_HEAD] !== frames[k - 1][FRAME_HEAD] ||
            frames[k][FRAME_HEAD + 1] !== frames[k - 1][FRAME_HEAD + 1]) {
          chew += 1;
        }
      }
      facings.push(facing);
      chews.push(chew);
    }
    return {
      id: wanted,
      layoutName: typeof layout.name === "string" ? layout.name : "",
      width: width,
      height: height,
      walls: walls,
      food: food,
      capsules: capsules,
      eatenAt: eatenAt,
      directions: directions,
      agents: agents,
      frames: frames,
      total: frames.length - 1,
      facings: facings,
      chews: chews,
      outcome: data.outcome,
      culprit: typeof data.culprit === "string" ? data.culprit : null,
      message: typeof data.message === "string" ? data.message : ""
    };
  }

  /** Agents at frame k exactly: [{x, y, direction, scared}]. */
  function posesAt(game, k) {
    var frame = game.frames[k];
    var out = [];
    for (var i = 0; i < game.agents.length; i++) {
      var at = FRAME_HEAD + AGENT_FIELDS * i;
      out.push({
        x: frame[at] / 2,
        y: frame[at + 1] / 2,
        direction: game.directions[frame[at + 2]],
        scared: frame[at + 3]
      });
    }
    return out;
  }

  /** Agents a fraction t of the way from frame k to k + 1 (scene.tween). */
  function tween(game, k, t) {
    var before = posesAt(game, k);
    var after = posesAt(game, k + 1);
    return before.map(function (p0, i) {
      var p1 = after[i];
      var slide = Math.abs(p1.x - p0.x) + Math.abs(p1.y - p0.y) <= MAX_SLIDE;
      return {
        x: slide ? p0.x + (p1.x - p0.x) * t : p1.x,
        y: slide ? p0.y + (p1.y - p0.y) * t : p1.y,
        direction: p1.direction,
        scared: t < 0.5 ? p0.scared : p1.scared
      };
    });
  }

  function describeAgents(agents) {
    var names = agents.map(function (a) { return a.name; });
    var pacman = names[0];
    var ghosts = names.slice(1);
    if (!ghosts.length) return pacman;
    var same = ghosts.every(function (g) { return g === ghosts[0]; });
    var them = same ? (ghosts.length === 1 ? ghosts[0] : ghosts.length + " x " + ghosts[0])
      : ghosts.join(", ");
    return pacman + " vs " + them;
  }

  function outcomeLabel(game) {
    var label = game.outcome.replace(/_/g, " ").toUpperCase();
    if (ENDINGS.indexOf(game.outcome) < 0 && game.culprit !== null) {
      label += " (" + game.culprit + ")";
    }
    return label;
  }

  function toneOf(outcome) {
    return COLORS.tones[outcome] || COLORS.otherTone;
  }

  function speedLabel(level) {
    var speed = SPEEDS[level];
    return speed >= 1 ? speed + "x" : "1/" + Math.round(1 / speed) + "x";
  }

  // --- drawing (pacman/display/render.py) ---------------------------------------------------

  function Painter(game, cell) {
    this.game = game;
    this.cell = cell;
    this.walls = null;
  }

  Painter.prototype.center = function (x, y) {
    var c = this.cell;
    return [(x + 0.5) * c, (this.game.height - 1 - y + 0.5) * c];
  };

  /** A filled circle around the centre of pixel (cx, cy), as pygame.draw.circle; `corner`
   * puts the centre on the pixel's corner instead (a wall's disc, flush with its bars). */
  Painter.prototype.disc = function (ctx, color, cx, cy, radius, corner) {
    var shift = corner ? 0 : 0.5;
    ctx.fillStyle = color;
    ctx.beginPath();
    ctx.arc(cx + shift, cy + shift, radius, 0, 2 * Math.PI);
    ctx.fill();
  };

  Painter.prototype.polygon = function (ctx, color, points) {
    ctx.fillStyle = color;
    ctx.beginPath();
    ctx.moveTo(points[0][0] + 0.5, points[0][1] + 0.5);
    for (var i = 1; i < points.length; i++) ctx.lineTo(points[i][0] + 0.5, points[i][1] + 0.5);
    ctx.closePath();
    ctx.fill();
  };

  /** The maze, once per painter: tubes with a bright outline (render.Renderer._walls). */
  Painter.prototype.wallLayer = function () {
    if (this.walls) return this.walls;
    var game = this.game;
    var cell = this.cell;
    var layer = document.createElement("canvas");
    layer.width = game.width * cell;
    layer.height = game.height * cell;
    var ctx = layer.getContext("2d");
    ctx.fillStyle = COLORS.background;
    ctx.fillRect(0, 0, layer.width, layer.height);
    var isWall = function (x, y) {
      return x >= 0 && y >= 0 && x < game.width && y < game.height &&
        game.walls[x + y * game.width] === 1;
    };
    var outer = cell * 0.6;
    var edge = Math.max(1, cell * 0.08);
    var passes = [[COLORS.wallEdge, outer, false], [COLORS.wall, outer - 2 * edge, true]];
    for (var p = 0; p < passes.length; p++) {
      var color = passes[p][0];
      var w = passes[p][1];
      var fillSquares = passes[p][2];
      var radius = Math.max(1, Math.round(w / 2));
      ctx.fillStyle = color;
      for (var y = 0; y < game.height; y++) {
        for (var x = 0; x < game.width; x++) {
          if (!isWall(x, y)) continue;
          var c = this.center(x, y);
          var cx = Math.round(c[0]);
          var cy = Math.round(c[1]);
          this.disc(ctx, color, cx, cy, radius, true);
          if (isWall(x + 1, y)) {
            var nx = Math.round(this.center(x + 1, y)[0]);
            ctx.fillRect(cx, Math.round(c[1] - w / 2), nx - cx + 1, Math.round(w));
          }
          if (isWall(x, y + 1)) {
            var ny = Math.round(this.center(x, y + 1)[1]);
            ctx.fillRect(Math.round(c[0] - w / 2), ny, Math.round(w), cy - ny + 1);
          }
          if (fillSquares && isWall(x + 1, y) && isWall(x, y + 1) && isWall(x + 1, y + 1)) {
            var corner = this.center(x + 1, y + 1);
            var qx = Math.round(corner[0]);
            var qy = Math.round(corner[1]);
            ctx.fillRect(cx, qy, qx - cx + 1, cy - qy + 1);
          }
        }
      }
    }
    this.walls = layer;
    return layer;
  };

  /** One picture: frame `k`, or `t` (0..1) of the way to frame k + 1 (timeline.scene). */
  Painter.prototype.draw = function (ctx, k, t) {
    var game = this.game;
    var cell = this.cell;
    var sliding = t > 0 && k < game.total;
    var shown = sliding && t >= 0.5 ? k + 1 : k; // food and capsules of the nearer state
    var poses = sliding ? tween(game, k, t) : posesAt(game, k);
    var facing = sliding ? game.facings[k + 1] : game.facings[k];
    var chew = game.chews[k];
    if (sliding && game.chews[k + 1] !== game.chews[k]) chew += t;
    ctx.drawImage(this.wallLayer(), 0, 0);
    var self = this;
    var dot = function (cells, color, radius) {
      cells.forEach(function (index) {
        if (game.eatenAt[index] <= shown) return;
        var c = self.center(index % game.width, Math.floor(index / game.width));
        self.disc(ctx, color, Math.round(c[0]), Math.round(c[1]), radius);
      });
    };
    dot(game.food, COLORS.food, Math.max(1, Math.round(cell * 0.1)));
    dot(game.capsules, COLORS.capsule, Math.max(2, Math.round(cell * 0.25)));
    this.pacman(ctx, poses[0], facing, chew);
    // Ghosts last: the catcher is seen on top of Pacman.
    for (var i = 1; i < poses.length; i++) this.ghost(ctx, i, poses[i]);
  };

  Painter.prototype.pacman = function (ctx, pose, facing, chew) {
    var v = VECTORS[facing] || [-1, 0];
    var dx = v[0];
    var dy = v[1];
    if (dx === 0 && dy === 0) dx = -1;
    var angle = Math.atan2(-dy, dx);
    var c = this.center(pose.x, pose.y);
    var radius = this.cell * 0.45;
    var degrees = MOUTH_SHUT + (MOUTH_OPEN - MOUTH_SHUT) * (0.5 + 0.5 * Math.cos(Math.PI * chew));
    var mouth = degrees * Math.PI / 180;
    var points = [[c[0] + Math.cos(angle) * radius * 0.15, c[1] + Math.sin(angle) * radius * 0.15]];
    var steps = 36;
    var sweep = 2 * Math.PI - 2 * mouth;
    for (var i = 0; i <= steps; i++) {
      var a = angle + mouth + sweep * i / steps;
      points.push([c[0] + Math.cos(a) * radius, c[1] + Math.sin(a) * radius]);
    }
    this.polygon(ctx, COLORS.pacman, points);
  };

  function ghostBody(index, scared) {
    if (scared <= 0) return GHOST_COLORS[(index - 1) % GHOST_COLORS.length];
    // The timer drops on each of the ghost's moves, so its parity blinks near the end.
    if (scared < BLINK_THRESHOLD && scared % 2 === 0) return COLORS.scaredBlink;
    return COLORS.scared;
  }

  Painter.prototype.ghost = function (ctx, index, pose) {
    var c = this.cell;
    var center = this.center(pose.x, pose.y);
    var cx = center[0];
    var cy = center[1];
    var r = c * 0.42;
    var domeY = cy - c * 0.08;
    var hemY = cy + c * 0.42;
    var body = ghostBody(index, pose.scared);
    var points = [];
    var steps = 16;
    for (var i = 0; i <= steps; i++) {
      var theta = Math.PI - Math.PI * i / steps;
      points.push([cx + r * Math.cos(theta), domeY - r * Math.sin(theta)]);
    }
    points.push([cx + r, hemY]);
    var teeth = 6;
    for (var k = 1; k <= teeth; k++) {
      points.push([cx + r - k * (2 * r / teeth), hemY - (k % 2 ? c * 0.13 : 0)]);
    }
    this.polygon(ctx, body, points);
    var side;
    if (pose.scared > 0) {
      var face = body === COLORS.scaredBlink ? COLORS.scaredBlinkFace : COLORS.scaredFace;
      var eyeR = Math.max(1, Math.round(c * 0.06));
      for (side = -1; side <= 1; side += 2) {
        this.disc(ctx, face, Math.round(cx + side * c * 0.14), Math.round(cy - c * 0.12), eyeR);
      }
      ctx.strokeStyle = face;
      ctx.lineWidth = Math.max(1, Math.round(c * 0.04));
      ctx.beginPath();
      for (var m = 0; m < 7; m++) {
        var mx = cx - c * 0.24 + m * c * 0.08 + 0.5;
        var my = cy + c * 0.16 + (m % 2 ? c * 0.04 : -c * 0.04) + 0.5;
        if (m === 0) ctx.moveTo(mx, my);
        else ctx.lineTo(mx, my);
      }
      ctx.stroke();
      return;
    }
    var v = VECTORS[pose.direction] || [0, 0];
    var whiteR = Math.max(2, Math.round(c * 0.11));
    var pupilR = Math.max(1, Math.round(c * 0.055));
    var look = c * 0.05;
    for (side = -1; side <= 1; side += 2) {
      var ex = cx + side * c * 0.16;
      var ey = cy - c * 0.12;
      this.disc(ctx, COLORS.eyeWhite, Math.round(ex + v[0] * look * 0.4),
        Math.round(ey - v[1] * look * 0.4), whiteR);
      this.disc(ctx, COLORS.pupil, Math.round(ex + v[0] * look), Math.round(ey - v[1] * look),
        pupilR);
    }
  };

  // --- the player ---------------------------------------------------------------------------

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function Player(section) {
    this.section = section;
    this.game = null; // the decoded game shown, or null
    this.gameId = null; // the id asked for (also when it cannot be shown)
    this.cache = new Map(); // frame file -> decoded game
    this.token = 0; // the load in flight; older loads are ignored when they finish
    this.index = 0;
    this.progress = 0;
    this.paused = true;
    this.speedLevel = NORMAL_SPEED;
    this.last = null; // time of the last animation frame while playing
    this.painter = null;
    this.whereText = "";
    this.reveal = false; // scroll the player into view when the game asked for is shown
    this.build();
    this.setState("empty");
  }

  Player.prototype.build = function () {
    var section = this.section;
    section.classList.add("player");
    section.textContent = "";
    var screen = el("div", "player-screen");
    this.canvas = el("canvas", "player-canvas");
    this.canvas.setAttribute("aria-label", "game board");
    this.message = el("div", "player-message");
    this.message.setAttribute("role", "status");
    this.message.hidden = true;
    screen.appendChild(this.canvas);
    screen.appendChild(this.message);
    section.appendChild(screen);

    var controls = el("div", "player-controls");
    var self = this;
    var button = function (name, text, label, command) {
      var b = el("button", "player-" + name, text);
      b.type = "button";
      b.title = label;
      b.setAttribute("aria-label", label);
      b.addEventListener("click", function () { self.command(command); });
      // A click leaves the focus where it was, so that space still plays and pauses (a
      // focused button would take space as its own click); keyboard users still tab to it.
      b.addEventListener("mousedown", function (event) { event.preventDefault(); });
      controls.appendChild(b);
      return b;
    };
    button("previous", "\u00AB game", "previous game (p)", "previous");
    button("first", "|\u25C0\uFE0E\u25C0\uFE0E", "first move (Home)", "start");
    button("back", "\u25C0\uFE0E|", "one move back (\u2190)", "back");
    this.playButton = button("play", "\u25B6\uFE0E", "play / pause (space)", "pause");
    button("forward", "|\u25B6\uFE0E", "one move forward (\u2192)", "forward");
    button("last", "\u25B6\uFE0E\u25B6\uFE0E|", "last move (End)", "end");
    this.seek = el("input", "player-seek");
    this.seek.type = "range";
    this.seek.min = "0";
    this.seek.max = "0";
    this.seek.value = "0";
    this.seek.setAttribute("aria-label", "move");
    this.seek.addEventListener("input", function () {
      self.goTo(parseInt(self.seek.value, 10), true);
    });
    controls.appendChild(this.seek);
    button("slower", "\u2212", "slower (-)", "slower");
    this.speedText = el("span", "player-speed", speedLabel(this.speedLevel));
    controls.appendChild(this.speedText);
    button("faster", "+", "faster (+)", "faster");
    button("next", "game \u00BB", "next game (n)", "next");
    button("help-toggle", "?", "keys (h)", "help");
    section.appendChild(controls);

    this.status = el("div", "player-status");
    this.status.setAttribute("aria-live", "polite");
    section.appendChild(this.status);

    this.help = el("dl", "player-help");
    HELP.forEach(function (pair) {
      self.help.appendChild(el("dt", "", pair[0]));
      self.help.appendChild(el("dd", "", pair[1]));
    });
    this.help.hidden = true;
    section.appendChild(this.help);
  };

  Player.prototype.setState = function (state) {
    var s = this.section;
    s.setAttribute("data-state", state);
    s.setAttribute("data-game", this.gameId === null ? "" : this.gameId);
    s.setAttribute("data-move", String(this.game ? this.index : 0));
    s.setAttribute("data-moves", String(this.game ? this.game.total : 0));
    s.setAttribute("data-speed", String(SPEEDS[this.speedLevel]));
  };

  /** The page's games: [data-game] elements outside the player, in document order. */
  Player.prototype.entries = function () {
    var section = this.section;
    return Array.prototype.filter.call(document.querySelectorAll("[data-game]"), function (e) {
      return e !== section && !section.contains(e);
    });
  };

  function visible(e) {
    return !e.closest("[hidden]");
  }

  Player.prototype.entryOf = function (id) {
    var all = this.entries();
    for (var i = 0; i < all.length; i++) {
      if (all[i].getAttribute("data-game") === id) return all[i];
    }
    return null;
  };

  /** The visible game after (step 1) or before (step -1) the one shown, or null. */
  Player.prototype.neighbour = function (step) {
    var self = this;
    var list = this.entries().filter(visible).filter(function (e) {
      return e.getAttribute("data-game") !== self.gameId;
    });
    var current = this.gameId === null ? null : this.entryOf(this.gameId);
    if (!current) return step > 0 ? list[0] || null : list[list.length - 1] || null;
    var after = list.filter(function (e) {
      return current.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING;
    });
    var before = list.filter(function (e) { return after.indexOf(e) < 0; });
    return step > 0 ? after[0] || null : before[before.length - 1] || null;
  };

  /** "3/10": where the game shown is among the visible games. */
  Player.prototype.where = function () {
    var self = this;
    var ids = [];
    this.entries().filter(visible).forEach(function (e) {
      var id = e.getAttribute("data-game");
      if (ids.indexOf(id) < 0) ids.push(id);
    });
    var at = ids.indexOf(self.gameId);
    return at < 0 || ids.length < 2 ? "" : (at + 1) + "/" + ids.length;
  };

  /** Recount `where` (the list changes when the table is sorted or filtered). */
  Player.prototype.refreshWhere = function () {
    var text = this.gameId === null ? "" : this.where();
    if (text === this.whereText) return;
    this.whereText = text;
    if (this.game) this.renderStatus();
  };

  Player.prototype.markCurrent = function () {
    var id = this.gameId;
    this.entries().forEach(function (e) {
      var current = e.getAttribute("data-game") === id;
      e.classList.toggle("player-current", current);
      if (current) e.setAttribute("aria-current", "true");
      else e.removeAttribute("aria-current");
    });
  };

  /** Show game `id` from its first move; `play` says whether it starts playing. */
  Player.prototype.open = function (id, play) {
    this.token += 1;
    this.gameId = id;
    this.game = null;
    this.index = 0;
    this.progress = 0;
    this.paused = !play;
    this.markCurrent();
    this.whereText = this.where();
    var entry = this.entryOf(id);
    if (!entry) {
      this.fail("There is no game " + id + " on this page.");
      return;
    }
    var src = entry.getAttribute("data-frames");
    if (!src) {
      this.fail("No replay of game " + id + " was kept, so it cannot be shown here.");
      return;
    }
    if (this.cache.has(src)) {
      this.show(this.cache.get(src));
      return;
    }
    this.message.hidden = false;
    this.message.textContent = "Loading game " + id + "\u2026";
    this.canvas.hidden = true;
    this.status.textContent = "";
    this.setState("loading");
    var token = this.token;
    var self = this;
    var script = document.createElement("script");
    script.async = true;
    var done = function () {
      script.remove();
      return token === self.token;
    };
    script.onload = function () {
      var data = deliveries.get(script);
      if (!done()) return;
      if (data === undefined) {
        self.fail("The frame file " + src + " of game " + id +
          " is damaged: it delivered no frames.");
        return;
      }
      var game;
      try {
        game = decode(data, id);
      } catch (error) {
        self.fail("The frame file " + src + " of game " + id + " cannot be shown: " +
          error.message + ".");
        return;
      }
      self.cache.set(src, game);
      if (self.cache.size > CACHED_GAMES) self.cache.delete(self.cache.keys().next().value);
      self.show(game);
    };
    script.onerror = function () {
      if (!done()) return;
      self.fail("The frame file " + src + " of game " + id + " could not be loaded " +
        "(it is missing or unreadable).");
    };
    script.src = src;
    document.head.appendChild(script);
  };

  Player.prototype.fail = function (text) {
    this.game = null;
    this.painter = null;
    this.paused = true;
    this.canvas.hidden = true;
    this.message.hidden = false;
    this.message.textContent = text;
    this.status.textContent = "";
    this.status.appendChild(el("div", "player-status-row player-error", text));
    this.seek.max = "0";
    this.seek.value = "0";
    this.seek.disabled = true;
    this.setState("error");
    this.revealIfAsked();
  };

  Player.prototype.show = function (game) {
    this.game = game;
    this.canvas.hidden = false;
    this.message.hidden = true;
    this.seek.disabled = false;
    this.seek.max = String(game.total);
    this.fit(true);
    this.render();
    if (!this.paused) this.startClock();
    this.revealIfAsked();
  };

  /** Size the canvas to the room the page gives it (a new size means a new painter). */
  Player.prototype.fit = function (force) {
    var game = this.game;
    if (!game) return;
    var room = this.canvas.parentNode.clientWidth || 600;
    var tall = Math.max(200, (window.innerHeight || 800) * 0.75);
    var cell = Math.floor(Math.min(room / game.width, tall / game.height, MAX_CELL));
    cell = Math.max(MIN_CELL, cell);
    if (!force && this.painter && this.painter.cell === cell) return;
    this.painter = new Painter(game, cell);
    this.canvas.width = game.width * cell;
    this.canvas.height = game.height * cell;
  };

  Player.prototype.render = function () {
    var game = this.game;
    if (!game) return;
    var ctx = this.canvas.getContext("2d");
    this.painter.draw(ctx, this.index, this.paused ? 0 : this.progress);
    this.seek.value = String(this.index);
    this.playButton.textContent = this.paused ? "\u25B6\uFE0E" : "\u275A\u275A";
    this.speedText.textContent = speedLabel(this.speedLevel);
    this.renderStatus();
    this.setState(this.paused ? "ready" : "playing");
  };

  Player.prototype.renderStatus = function () {
    var game = this.game;
    // The status follows the nearer state while sliding, as the pygame viewer's does.
    var k = this.index + (!this.paused && this.progress >= 0.5 ? 1 : 0);
    k = Math.min(k, game.total);
    var frame = game.frames[k];
    var move = "move " + k + "/" + game.total;
    if (k > 0) {
      var who = frame[1] === 0 ? "Pacman" : "ghost " + frame[1];
      move += " (" + who + " " + game.directions[frame[2]] + ")";
    }
    var atEnd = k === game.total;
    var note = (this.paused ? (atEnd && game.total > 0 ? "end" : "paused") : "playing") + " " +
      speedLabel(this.speedLevel);
    var where = this.whereText;
    var rows = [
      ["Score: " + frame[0], move, note, ""],
      [describeAgents(game.agents), atEnd ? outcomeLabel(game) : "",
        game.layoutName + (where ? "  " + where : ""), atEnd ? toneOf(game.outcome) : ""]
    ];
    var status = this.status;
    status.textContent = "";
    rows.forEach(function (row) {
      var line = el("div", "player-status-row");
      line.appendChild(el("span", "player-status-left", row[0]));
      var centre = el("span", "player-status-centre", row[1]);
      if (row[3]) centre.style.color = row[3];
      line.appendChild(centre);
      line.appendChild(el("span", "player-status-right", row[2]));
      status.appendChild(line);
    });
    if (atEnd && game.message) {
      var who = game.culprit !== null ? game.culprit + ": " : "";
      status.appendChild(el("div", "player-status-row player-status-message", who + game.message));
    }
  };

  // --- commands (pacman/display/controls.py's ViewerModel) -----------------------------------

  Player.prototype.command = function (name) {
    if (name === "next" || name === "previous") {
      var target = this.neighbour(name === "next" ? 1 : -1);
      if (target) this.navigate(target.getAttribute("data-game"), !this.paused);
      return;
    }
    if (name === "help") {
      this.help.hidden = !this.help.hidden;
      return;
    }
    var game = this.game;
    if (!game) return;
    var position = this.index + (this.paused ? 0 : this.progress);
    switch (name) {
      case "pause":
        if (this.paused && this.index >= game.total) {
          this.goTo(0, false);
        } else if (this.paused) {
          this.paused = false;
          this.render();
        } else {
          this.goTo(Math.round(position), true);
        }
        break;
      case "forward":
        this.goTo(Math.floor(position) + 1, true);
        break;
      case "back":
        this.goTo(Math.ceil(position) - 1, true);
        break;
      case "start":
        this.goTo(0, this.paused);
        break;
      case "end":
        this.goTo(game.total, true);
        break;
      case "restart":
        this.goTo(0, false);
        break;
      case "faster":
        this.speedLevel = Math.min(this.speedLevel + 1, SPEEDS.length - 1);
        this.render();
        break;
      case "slower":
        this.speedLevel = Math.max(this.speedLevel - 1, 0);
        this.render();
        break;
      default:
        break;
    }
    if (!this.paused) this.startClock();
  };

  Player.prototype.goTo = function (index, paused) {
    var game = this.game;
    if (!game) return;
    this.index = Math.max(0, Math.min(isNaN(index) ? 0 : index, game.total));
    this.progress = 0;
    this.paused = paused;
    this.render();
    if (!paused) this.startClock();
  };

  /** Another game of the list: shown at once, and the address says which (#game=<id>). */
  Player.prototype.navigate = function (id, play) {
    this.open(id, play);
    var hash = "#game=" + encodeURIComponent(id);
    if (location.hash !== hash) {
      this.ownHash = hash;
      location.replace(hash);
    }
  };

  Player.prototype.startClock = function () {
    if (this.clockRunning) return;
    this.clockRunning = true;
    this.last = null;
    var self = this;
    var step = function (now) {
      if (self.paused || !self.game) {
        self.clockRunning = false;
        return;
      }
      if (self.last !== null) self.advance((now - self.last) / 1000);
      self.last = now;
      if (self.paused) {
        self.clockRunning = false;
        return;
      }
      window.requestAnimationFrame(step);
    };
    window.requestAnimationFrame(step);
  };

  /** Playback after `seconds` more (ViewerModel.tick): speed / FRAME_TIME moves a second. */
  Player.prototype.advance = function (seconds) {
    var game = this.game;
    if (seconds <= 0) return;
    var position = this.index + this.progress + seconds * SPEEDS[this.speedLevel] / FRAME_TIME;
    if (position >= game.total) {
      this.index = game.total;
      this.progress = 0;
      this.paused = true;
    } else {
      this.index = Math.floor(position);
      this.progress = position - this.index;
    }
    this.render();
  };

  // --- keys, address, start ------------------------------------------------------------------

  var TYPING = /^(text|search|email|number|password|tel|url|date|datetime-local|month|time|week)$/;

  var PRESSABLE = /^(button|submit|reset|checkbox|radio|image|file|color)$/;

  /** Whether space and Enter are the element's own (a button, a checkbox...). */
  function pressable(target) {
    if (!target || !target.tagName) return false;
    var tag = target.tagName;
    // Not a link: space on a link would only scroll, and after following a #game= link
    // the focus is on it while the person wants space to play.
    if (tag === "BUTTON" || tag === "SUMMARY") return true;
    return tag === "INPUT" && PRESSABLE.test((target.type || "").toLowerCase());
  }

  function typingInto(target) {
    if (!target || !target.tagName) return false;
    if (target.isContentEditable) return true;
    var tag = target.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT") return true;
    return tag === "INPUT" && TYPING.test((target.type || "text").toLowerCase());
  }

  Player.prototype.onKey = function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (typingInto(target)) return;
    var key = event.key && event.key.length === 1 ? event.key.toLowerCase() : event.key;
    // A focused button or checkbox does its own job on space and Enter.
    if ((key === " " || key === "Enter") && pressable(target)) return;
    var command = KEYS[key];
    if (!command) return;
    // The keys are the player's while it is on screen (or has the focus); further down a
    // long list, space, arrows, Home and End scroll the page as usual.
    if (!this.section.contains(target) && !this.onScreen()) return;
    event.preventDefault();
    this.command(command);
  };

  /** Whether a third of the player (or of the window, if the player is taller) is visible. */
  Player.prototype.onScreen = function () {
    var box = this.section.getBoundingClientRect();
    var height = window.innerHeight || document.documentElement.clientHeight;
    var seen = Math.min(box.bottom, height) - Math.max(box.top, 0);
    return seen >= Math.min(box.height, height) / 3;
  };

  function gameInHash() {
    var match = /^#game=(.+)$/.exec(location.hash);
    if (!match) return null;
    try {
      return decodeURIComponent(match[1]);
    } catch (error) {
      return match[1];
    }
  }

  Player.prototype.onHash = function () {
    var own = this.ownHash === location.hash;
    this.ownHash = null;
    var id = gameInHash();
    if (id === null) return;
    this.reveal = !own; // a link was followed: bring the player into view once it shows
    if (id === this.gameId) {
      this.revealIfAsked(); // the game shown already (the first one, opened on arrival)
      return;
    }
    this.open(id, false);
  };

  /** Scroll the player to the top of the window, once, when a link asked for a game: after
   * the game is shown (or refused), so that the board's final size is known. */
  Player.prototype.revealIfAsked = function () {
    if (!this.reveal) return;
    this.reveal = false;
    if (this.section.scrollIntoView) this.section.scrollIntoView({ block: "start" });
  };

  Player.prototype.start = function () {
    var self = this;
    document.addEventListener("keydown", function (event) { self.onKey(event); });
    window.addEventListener("hashchange", function () { self.onHash(); });
    window.addEventListener("resize", function () {
      if (!self.game) return;
      var before = self.painter;
      self.fit(false);
      if (self.painter !== before) self.render();
    });
    if (window.MutationObserver) {
      // Sorting moves rows and filtering hides them: "3/10" must follow.
      new MutationObserver(function (mutations) {
        var outside = mutations.some(function (m) { return !self.section.contains(m.target); });
        if (outside) self.refreshWhere();
      }).observe(document.body, {
        subtree: true, childList: true, attributes: true, attributeFilter: ["hidden"]
      });
    }
    // A link to the game already shown changes no address, so no hashchange: reveal it here.
    document.addEventListener("click", function (event) {
      var link = event.target && event.target.closest ? event.target.closest("a[href]") : null;
      if (!link || link.getAttribute("href") !== location.hash) return;
      if (gameInHash() === self.gameId) {
        self.reveal = true;
        self.revealIfAsked();
      }
    });
    var id = gameInHash();
    if (id !== null) {
      this.reveal = true;
      this.open(id, false);
      return;
    }
    var first = this.entries().filter(visible).filter(function (e) {
      return e.hasAttribute("data-frames");
    })[0];
    if (first) {
      this.open(first.getAttribute("data-game"), false);
    } else {
      this.message.hidden = false;
      this.message.textContent = "No replay of a game on this page to show.";
      this.canvas.hidden = true;
      this.setState("empty");
    }
  };

  function init() {
    var section = document.getElementById("player");
    if (!section) return;
    if (!PALETTE) {
      section.textContent = "The replay player cannot start: assets/palette.js is missing.";
      section.setAttribute("data-state", "error");
      return;
    }
    var player = new Player(section);
    // After the page's other start-up handlers (the table sorts its rows first).
    window.setTimeout(function () { player.start(); }, 0);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
