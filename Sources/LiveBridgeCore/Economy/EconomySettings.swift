/// The push economy's knobs (`economy` in the config): every threshold `EconomyPolicy` uses is a
/// field here, with the reason it exists.
public struct EconomySettings: Sendable, Hashable {
    /// ε: the largest difference between the bar on the phone and the truth before a push.
    public var maxDisplayError: Double = 0.03
    /// An ETA moving by more than max(this, `etaToleranceFraction` × remaining) is pushed (a
    /// countdown a quarter off is a countdown a person notices; closer ones only when the bar
    /// itself would drift past ε before the finish).
    public var etaToleranceMinimum: Double = 60
    /// See `etaToleranceMinimum`.
    public var etaToleranceFraction: Double = 0.25
    /// …and never less than this share of the whole job (its age plus the time left): near the
    /// end of a five-hour print a countdown a few minutes off is within what any estimate of it
    /// knows, and the bar itself is still held within ε.
    public var etaJobFraction: Double = 0.05
    /// Seconds between the final `ongoing` frame and `state: ended` in a two-phase end.
    public var endDisplay: Double = 4
    /// A sink whose activities iOS ends at an age (`Sink.lifecycleLimit`, 8 h ongoing for
    /// PushWard) gets the job's activity ended and started afresh this long before: room for a
    /// delivery that retries through an outage, at no extra cost (one renewal either way).
    public var renewalMargin: Double = 900
    /// …unless the job is expected to end before the limit: then the renewal waits until this
    /// long before it, and a job that ends in time needs none.
    public var renewalLastMoment: Double = 120
    /// 2 = final frame then `ended` after `endDisplay`; 1 = one request (final content with
    /// `state: ended`). Nil = automatic: 1 when a monthly budget is set, else 2.
    public var endFrames: Int?
    /// Volatile details (speed, temperatures, the layer) are refreshed on a push at most this
    /// often. 0 (the default): on every push, so a number on the card is true when its push goes
    /// out; riding along costs nothing.
    public var detailInterval: Double = 0
    /// Updates allowed per calendar month (UTC) per sink; nil = unlimited.
    public var monthlyBudget: Int?
    /// With a monthly budget, a job's pauses (each with its resume) show even when only the
    /// month's reserve is left, up to this many; later ones are phase changes like any other
    /// (held back once only the reserve is left), so a printer or a queue flapping between paused
    /// and running cannot spend the month past its budget.
    public var essentialPauses: Int = 3
    /// With a monthly budget, a job whose `end_date` passes while it still runs is re-anchored
    /// even when only the month's reserve is left, this many times (counted with the starts and
    /// ends the reserve keeps room for): otherwise its bar falls back to the progress of its last
    /// push and stands there until the end (a two-hour download that stalled, at 0 % for half an
    /// hour). Later ones are held back like any other update.
    public var essentialDeadlines: Int = 1
    /// A job that resumes after a pause glides from its resume push when its usual advance is at
    /// most this share of ε — every job, as it stands (∞): the bar then stays within ε until the
    /// first advance after the resume (a whole percent of a print is minutes away), and the push
    /// that would start the glide then is saved. A share of ½ held coarse SABnzbd counts still
    /// until they moved; since a short tail aims at its finish that costs the paused-download
    /// recordings a push and saves none (`ResumeGlideTests`).
    public var resumeGlideStepShare: Double = .infinity
    /// Lower bound of the `stale_ttl` derived from the ETA.
    public var staleTTLMinimum: Double = 3600
    /// Upper bound of the derived `stale_ttl`: a card whose bridge stopped is called stale within
    /// a day. iOS's 8-hour limit is the sink's lifecycle limit, met by a renewal that starts the
    /// TTLs afresh; a cap at 8 h cost a job of 6–20 hours on a display without that limit a
    /// heartbeat every 7.6 h that nothing needed.
    public var staleTTLMaximum: Double = 86400
    /// `stale_ttl` when the ETA is unknown (paused, no estimate).
    public var staleTTLUnknown: Double = 14400
    /// The derived `stale_ttl` is this many times the time left, plus `staleTTLPad`: an estimate
    /// may run long by as much again before the card is called stale.
    public var staleTTLFactor: Double = 2
    /// See `staleTTLFactor`: a short job's card is not called stale minutes after its estimate.
    public var staleTTLPad: Double = 1800
    /// A heartbeat goes this long before `stale_ttl` runs out (at least; see
    /// `heartbeatMarginShare`): room for a retry or two.
    public var heartbeatMarginMinimum: Double = 300
    /// See `heartbeatMarginMinimum`: a share of a long `stale_ttl`.
    public var heartbeatMarginShare: Double = 0.05
    /// …and never more than this share of `stale_ttl`: a short TTL is not renewed straight after
    /// the push it came with.
    public var heartbeatMarginMaximumShare: Double = 0.5
    /// With a monthly budget, card-text changes within a phase wait for the next push once the
    /// month's projected use reaches this many times `budgetProjectionShare` of the budget.
    public var labelDeferralWidening: Double = 1.5
    /// With a monthly budget, a card-text change within a phase spends the job's share
    /// (`BudgetPressure.jobAllowance`) only while this many of its updates are left for the bar
    /// after it: one correction holds a bar within the budget's tolerance for hours, and the new
    /// text rides along with the next push (a print's "Homing toolhead" ate the one correction its
    /// share allowed, and the printer's estimate ran 6.5 % long to the end).
    public var labelKeptCorrections: Int = 1
    /// ε's widening whenever a budget is set, however much of it is left: a month on a budget
    /// holds its jobs within 0.05 (against ε 0.03), so a correction the bar would need only for
    /// the tighter ε is not spent early in the month and missed at its end. A month running hot
    /// does not widen it further: a bar let past 0.05 misses what the budget is for, and the
    /// month is rationed by each job's share (`BudgetPressure.jobAllowance`), card texts waiting
    /// (`BudgetPressure.projection`) and, at the end, the reserve for starts and ends.
    public var budgetWidening: Double = 0.05 / 0.03
    /// ε's widening once the budget, or all but its reserve for starts and ends, is spent: nothing
    /// else goes out then, and the bar is no longer held to the budget's tolerance.
    public var budgetExhaustedWidening: Double = 3
    /// The month's pace of starts and ends is read over at least this share of it (three days):
    /// one busy first evening is not the month's pace.
    public var budgetMinimumElapsedShare: Double = 3.0 / 30.0
    /// The reserve for the month's starts and ends holds this many times what their pace so far
    /// projects…
    public var budgetReserveMargin: Double = 1.15
    /// …and this many updates more: one more job's start and end than the projection.
    public var budgetReserveSpare: Double = 2
    /// `BudgetPressure.projection` is the month's projected use over this share of the budget:
    /// card-text changes start to wait (`labelDeferralWidening`) with room still left.
    public var budgetProjectionShare: Double = 0.8
    /// `ended_ttl` sent on create.
    public var endedTTL: Int = 900
    /// `dismissal_ttl` sent on create.
    public var dismissalTTL: Int = 900
    /// Re-anchor this many seconds before `end_date` passes while the job still runs (the bar
    /// would otherwise fall back to the pushed progress), unless the job is on track
    /// (`EconomyPolicy.onTrack`): the latest observation says it ends, seen a poll later, by
    /// then, or the bar was pushed within ε of its finish and of the count.
    public var deadlineLead: Double = 3
    /// `end_date` is set up to this much after the estimated finish, or `finishPadShare` of the
    /// time left if that is more (never more than keeps the glide within `finishPadErrorShare` × ε
    /// of the truth), so a job finishing on time or a little late ends before the bar would fall
    /// back and no re-anchor is needed.
    public var finishPad: Double = 120
    /// See `finishPad`: a long job's estimate is minutes off as a matter of course (a 14-hour
    /// print's by a quarter of an hour), and a countdown 5 % long is within what any estimate of
    /// it knows (see `etaJobFraction`).
    public var finishPadShare: Double = 0.05
    /// The pad never costs the glide more than this share of ε at the finish (a bar aimed late by
    /// the pad lags the truth by at most that much when the job ends on time); of the budget's
    /// widened ε for a job a monthly budget rations, like every other bound under a budget.
    public var finishPadErrorShare: Double = 0.3
    /// When a monthly budget leaves room for nothing but starts and ends, a glide is aimed this
    /// share of the time left late (a job running behind its estimate still ends before its bar
    /// falls back to the pushed progress), and never later than keeps a job ending on time within
    /// `frozenFinishShare` of the budget's tolerance at its finish.
    public var frozenFinishPad: Double = 0.15
    /// …that share: a glide aimed late lags a job that ends on time, and the rest of the
    /// tolerance is for the estimate's own error (a job ending a little ahead of it). A
    /// fixed finish (an appliance's own) is aimed the same way whenever a budget rations the job.
    public var frozenFinishShare: Double = 0.5
    /// Glide only when the finish is at least this far ahead; shorter tails stand still.
    public var liveMinimumWindow: Double = 20
    /// …less for a short job: this share of the job so far (at least `liveWindowLeads`
    /// `deadlineLead`s), so a one-minute download does not stand still for its last third.
    public var liveWindowAgeShare: Double = 0.2
    /// See `liveWindowAgeShare`: a glide shorter than two re-anchor leads would be re-anchored
    /// as soon as it starts.
    public var liveWindowLeads: Double = 2
    /// A job's first glide, or a glide for a bar standing still, is worth a push only when the
    /// finish is this many live windows ahead (`liveMinimumWindow`, `liveWindowAgeShare`)…
    public var glideWindows: Double = 3
    /// …and at least this far (seconds) for a first glide: a glide shorter than a minute is gone
    /// before anyone looks.
    public var firstGlideMinimum: Double = 60
    /// A bar standing still gets a glide only when the finish is at least this share of the job's
    /// age ahead (capped at `firstGlideMinimum`): a job that nearly finished stands until its end.
    public var standingGlideAgeShare: Double = 0.3
    /// The smoothed time between observations (the source's poll interval) takes each new gap in
    /// with this weight.
    public var observationGapWeight: Double = 0.3
    /// A job's end is seen up to the longest of the source's last this many gaps between
    /// observations after its finish (`EconomyPolicy.endSeen`: whether it is on track, where a
    /// tail aims), not the smoothed gap: sensors read in turn (a washer's progress and remaining
    /// time, 10 s and 40 s apart) average 25 s, and an end read as due that soon left a sampled
    /// washer's bar fallen back to its pushed progress for the 9 s until the reading that showed it.
    public var endSeenGaps: Int = 4
    /// A fixed finish time (a timer) is pushed unchanged; if the job still runs this long after
    /// it, the bar is frozen at the truth.
    public var fixedFinishGrace: Double = 10
    /// A fixed finish is pushed this many seconds late: the end the source sends at its finish
    /// takes a moment to arrive, and a bar whose `end_date` has passed falls back to the progress
    /// last pushed (an empty bar for the last second of a timer) instead of staying full.
    public var fixedFinishPad: Double = 2
    /// A truth older than this is not extrapolated; the bar is frozen at it instead.
    public var truthMaximumAge: Double = 120
    /// An ETA deviation beyond the tolerance must last this long (seconds) before it is pushed.
    public var etaPersistence: Double = 30
    /// A source's ETA moving is pushed only when the pace measured since the last push agrees it
    /// moved; the pace needs this many seconds of progress to be judged.
    public var etaTrendMinimum: Double = 60
    /// Static sinks (no interpolation on the device): ε. Every correction of a static bar is a
    /// push, so the default is wider than the interpolating one.
    public var staticMaxDisplayError: Double = 0.05
    /// Static sinks: at least this many seconds between two non-structural pushes.
    public var staticMinimumInterval: Double = 60
    /// Static sinks: the "N min" label is corrected when off by more than max(this, fraction ×
    /// remaining).
    public var staticETAToleranceMinimum: Double = 120
    /// See `staticETAToleranceMinimum`.
    public var staticETAToleranceFraction: Double = 0.25

    /// A frame decided within this many seconds after the last one of its activity left waits for
    /// the window to pass, and frames waiting together leave as one request (a card text and the
    /// progress a few ms later, an estimate right after a seed): one event, one push. Short,
    /// because it also bounds how fast a correction can follow: a one-minute download moves
    /// ~2 % a second.
    public var coalesceWindow: Double = 1
    /// A frame that waited this many seconds or more before it leaves (an outage, a retry, the
    /// coalescing window) is planned again for the moment it leaves, when it is still its
    /// activity's latest word (`ActivityTracker.refreshed`): a second at a one-minute download's
    /// pace is 2 % of its bar. One that waited less leaves with its glide moved to that moment.
    public var refreshAge: Double = 1
    /// A job's first frame, when it has no estimate worth a glide yet (with or without a progress),
    /// waits up to this many seconds for one from the source's next answer — `paceWindowMinimum`
    /// longer when its progress keeps moving meanwhile, for the pace to give one where the source states
    /// none. The card then appears once, already gliding, instead of a still seed and a glide
    /// seconds later. Anything worth a push ends the wait early (a bar off by ε, a new card text, a
    /// pause, the end).
    public var startWait: Double = 10
    /// See `startWait`: a progress that moved this many times meanwhile keeps moving; one that
    /// moved once is a value set by hand, not a pace to wait for.
    public var seedPaceAdvances: Int = 2
    /// How long that first frame waits instead when its source states a finish of its own but has
    /// not yet (`ActivityUpdate.statesFinish`): one of the slowest report intervals such a source
    /// has — a Home Assistant appliance's remaining time, polled from its cloud once a minute —
    /// so the card appears once, gliding to the source's own finish, instead of a still seed and
    /// a glide when the first remaining time arrives. Not shorter than `startWait`.
    public var estimateWait: Double = 60
    /// The pace is measured over the points where the progress moved within the last
    /// max(this, `paceWindowFraction` × the job's age) seconds: long enough to average a
    /// source's steps, short enough to follow a real change of speed.
    public var paceWindowMinimum: Double = 30
    /// See `paceWindowMinimum`.
    public var paceWindowFraction: Double = 0.25
    /// Upper bound of the pace window: an hour-old pace says little about the next minutes.
    public var paceWindowMaximum: Double = 1800
    /// The pace window holds at least this many of the source's usual gaps between advances,
    /// whatever the job's age: a sensor sampled every 30–60 s would otherwise never have a pace.
    public var paceWindowGaps: Double = 4
    /// A bar leans toward where the truth heads (`driftAnchorShare`) only once the stretch since
    /// the card's text last changed has shown this many of the source's gaps: the pace before a
    /// washer's rinse says nothing about the rinse.
    public var leanStretchGaps: Double = 3
    /// The relative error a pace may carry from the unevenness of the source's advances: the
    /// window holds (cv / this)² of its usual gaps, cv being how much the recent gaps vary (see
    /// `EconomyPolicy.unevenWindow`). A pace off by this share moves the bar as much times the
    /// rest of the job from the truth by the finish, so ε keeps even a whole job's remainder
    /// within ε; a real change of speed restarts the window (`paceChangeFactor`,
    /// `paceChangeConfidence`). A count moving every poll varies little and keeps the short
    /// window. 0 = off.
    public var paceNoise: Double = 0.03
    /// The pace window restarts at a change of speed: when the advances of the last
    /// max(`paceChangeSpan`, 4 usual gaps, 2 of the longest recent waits) seconds run this many
    /// times faster or slower than the ones before (a server halving its rate is a new pace, not
    /// noise to average over; a burst of articles a minute apart is neither).
    public var paceChangeFactor: Double = 1.6
    /// See `paceChangeFactor`.
    public var paceChangeSpan: Double = 10
    /// After a change of speed the count showed, the source's estimate is left out of the finish
    /// while it still reads nearer the speed before the change than the new pace
    /// (`EconomyPolicy.sourceUnaware`): it has not seen the change yet (a download client's meter
    /// averaging over minutes — a SABnzbd recording replayed an hour long turns its 10-s meter
    /// over ten minutes), and a blend with it would leave each correction short of the new speed.
    public var unseenChangeOverSource = true
    /// The pace window also restarts where the source's own estimate shifted by `statedRateFactor`
    /// and held for `paceChangeAdvances` answers (`StatedRateShift`).
    public var statedRateShifts = true
    /// …a shift beyond a speed meter's wobble (SABnzbd's reads ±15 % from one answer to the next)
    /// on three answers running; the count still has to confirm it (`statedRateConfirmSteps`), so
    /// this is lower than `paceChangeFactor`, which the count alone must carry (1.6 missed a
    /// server slowing to 0.63–0.7 of its speed).
    public var statedRateFactor: Double = 1.4
    /// …read only while the time the source says is left is this many of its own resolution
    /// (whole minutes floored swing a short remainder by more than any change of speed).
    public var statedRateResolutionSteps: Double = 10
    /// …and restarts it once the count has left the old pace's line by this many of its steps
    /// the way the source said, within a pace window (a count within a step of either line says
    /// nothing; a meter climbing back after a pause is not followed by the count).
    public var statedRateConfirmSteps: Double = 1
    /// The pace also restarts where the bar's own corrections show a change of speed before the
    /// change test can (its stretch has to lie mostly at the new speed): a correction that
    /// follows one on the same side of the count (the bar ahead both times, or behind) within
    /// the change test's stretch restarts it at the first of them, once the count has left the
    /// pace of then by more than this many of its steps, at a speed `paceChangeFactor` off it. A
    /// download whose server halved its speed was corrected four times in 8 s, each push keeping
    /// the old pace's `end_date`.
    public var correctionChangeSteps: Double = 1
    /// …and, for a source whose advances come unevenly, more than chance explains: the two
    /// stretches' rates must differ by over this many times their combined error (cv / √n each,
    /// cv how much the recent gaps between advances vary). A slow server's articles, landing one
    /// by one at uneven times, run 50 % faster over four of them than over the four before by
    /// chance alone. 0 = off.
    public var paceChangeConfidence: Double = 3
    /// The recent stretch a change of speed is judged over spans at least this many of the
    /// source's usual gaps between advances (and `paceChangeSpan` seconds)…
    public var paceChangeGaps: Double = 4
    /// …and this many of its longest recent waits: a count whose articles land in bursts a minute
    /// apart runs fast within a burst, which is no change of speed.
    public var paceChangeLongGaps: Double = 2
    /// A change of speed is looked for once the pace holds this many advances: one before the
    /// recent stretch and two within it at the least.
    public var paceChangeAdvances: Int = 3
    /// The usual gap between advances and the usual step follow each new advance with this weight:
    /// a new rhythm is learned within a few advances, and one odd advance moves them by a third.
    public var paceSmoothing: Double = 0.3
    /// The longest recent wait (`PaceEstimate.longGap`) and the unevenness of the advances are
    /// read over this many of the last gaps between them: a slow server's bursts a minute apart
    /// are in it several times over, a stall of long ago is not.
    public var paceRecentGaps: Int = 8
    /// The unevenness of the gaps between advances is known from this many of them: a spread
    /// read from fewer says nothing.
    public var irregularityMinimumGaps: Int = 4
    /// A pace needs its advances to span this many seconds (and `paceMinimumGaps` of the
    /// source's usual gaps between advances) before it is believed.
    public var paceMinimumSpan: Double = 2
    /// See `paceMinimumSpan`: a few of the source's own steps, however fine or coarse they are.
    public var paceMinimumGaps: Double = 3
    /// A span counts as a number of the source's usual gaps when it falls short of that many
    /// by no more than this share of one gap (`paceMinimumGaps`, `leanStretchGaps`): the usual gap
    /// is smoothed and the span measured, so a sensor read every 30 s spans its three gaps in
    /// 90.000 s against a smoothed gap of 30.005 s (Home Assistant's timestamps a few ms apart),
    /// and a washer's first correction waited a reading for its pace and its lean.
    public var gapCountJitter: Double = 0.03
    /// A pace just after a stall is read from this many advances since the job moved again (and
    /// over `paceMinimumSpan`): one advance is a step, not a speed.
    public var resumeRateAdvances: Int = 2
    /// The measured pace is believed against the source's estimate less while the advances it
    /// rests on are few of the source's steps: nothing at this many steps (two whole percents),
    /// fully at many.
    public var pacePrecisionSteps: Double = 2
    /// Largest weight of the measured pace against the source's own estimate when the two are
    /// blended; the rest stays with the source, which may know what the pace cannot (a slow
    /// first layer, a faster last stretch).
    public var paceWeightMaximum: Double = 0.8
    /// The source's estimate and the pace are scored against the progress made this many of the
    /// job's usual gaps between advances later (at least `paceMinimumSpan`): soon enough to learn
    /// within a minute-long download, long enough that a stepwise source's steps average out.
    public var scoreHorizonGaps: Double = 4
    /// A forecast is made at most once per this share of the horizon: a source read every second
    /// would otherwise keep hundreds pending, each scored against nearly the same progress.
    public var scoreSpacingShare: Double = 0.125
    /// Each forecaster's error follows each scored forecast with this weight: its track record is
    /// the last few horizons', not one lucky or unlucky one.
    public var scoreSmoothing: Double = 0.3
    /// A source's estimate is corrected by its bias (a slicer's running 20 % long all print long)
    /// when the mean of actual ÷ stated rate over the job's scored forecasts lies further from 1
    /// than this many standard errors: a few sections printing slow by chance are no bias, and
    /// the test is taken again at every forecast, so it asks for more than a one-off test would.
    public var calibrationConfidence: Double = 4
    /// The pace's share of the finish before the source's estimate and the pace have both been
    /// scored against what followed: no track record either way.
    public var paceShareUnscored: Double = 0
    /// The job is stalled when the progress has not moved for max(this, `stallGapFactor` ×
    /// the longest of its recent waits between advances): the bar then stands still instead of
    /// gliding on.
    public var stallMinimum: Double = 3
    /// See `stallMinimum`: three missed steps of a stepwise source are no longer chance.
    public var stallGapFactor: Double = 3
    /// A push once this many times the job's longest recent wait passed without an advance (two
    /// polls in a row of a count that moves every poll) anchors a bar standing still (see
    /// `EconomyPolicy.plan`).
    public var overdueGapFactor: Double = 2
    /// A source's finish further out than this many times what the measured pace supports is
    /// not believed (a rate measured right after a stall) unless it held still for
    /// `steadyFinishSteps`; the pace's finish is used instead.
    public var absurdFinishFactor: Double = 2
    /// No `end_date` further out than this (seconds) unless the source states a fixed finish:
    /// nothing a home-lab job does is usefully counted down from days away.
    public var maximumCountdown: Double = 86_400
    /// An ETA re-anchor that reverses the direction of the previous one within this many
    /// seconds needs `etaReversalFactor` × the usual tolerance: with the target always the
    /// robust estimate, a limit cycle would need the estimate itself to swing that far and back.
    public var etaReversalWindow: Double = 600
    /// See `etaReversalWindow`.
    public var etaReversalFactor: Double = 2
    /// In a job's last this-many seconds the countdown is not corrected for its own sake (the bar
    /// still is): the end arrives sooner than the correction would be read.
    public var etaQuietTail: Double = 120
    /// The predictive display-error check looks this many of the job's usual gaps between advances
    /// ahead: a bar already off by half of ε that will be off by ε before the observations could
    /// show it is corrected now, in one push (and not half a minute early on a job polled every
    /// second).
    public var errorLookaheadGaps: Double = 2
    /// See `errorLookaheadGaps`: the share of ε a bar must already be off before it is projected.
    public var lookaheadErrorShare: Double = 0.5
    /// A count that moves at every reading is projected this many of the source's gaps ahead at
    /// the speed of its last reading; a bar that would then be past its tolerance is corrected at
    /// this reading, not the one after, when the 1-s grid already sees it past (0 = only once it is).
    public var readingLookaheadGaps: Double = 1
    /// A push for a drifting bar brings it within its tolerance of where it should be, or at least
    /// this share of ε nearer than it is: one the same check would judge as far off again is none.
    public var correctionGainShare: Double = 0.5
    /// A bar below a fine staircase's glide is corrected at ε less the glide's offset
    /// (`EconomyPolicy.glideTolerance`), never at less than this share of ε.
    public var glideToleranceFloorShare: Double = 0.5
    /// The predictive check projects a staircase's pace (a count polled between its steps) once
    /// that pace spans this long, or sooner once the steps' unevenness is known and the pace spans
    /// what averages it out (`EconomyPolicy.unevenWindow`): two of the pace's shortest windows. A
    /// slow server's first articles land in bursts, and a pace read from the first few is minutes
    /// off either way.
    public var lookaheadStaircaseSpan: Double = 60
    /// A push while a coarse staircase's step is due anchors a bar that waits at the top of its
    /// glide when gliding on would pass the count's tolerance within this many of the source's
    /// intervals between observations: such a glide could only be corrected at the next ones.
    public var stepWaitObservations: Double = 2
    /// A floored count (a whole percent) read at least this many times per step, on average, is
    /// judged against its next reading as if it had not moved: a bar rising away from it is
    /// corrected a reading early, not late (`EconomyPolicy.outrunsFlatCount`).
    public var flatCountReadings: Double = 2

    /// A push anchors a bar whose slope (its `end_date`) differs from the measured pace up to this
    /// share of ε ahead of or behind the truth, on the side the truth is heading, so the drift
    /// crosses the truth before it reaches ε on the other side (see `EconomyPolicy.leaning`).
    /// 0 = on the truth.
    public var driftAnchorShare: Double = 0.6

    /// A coarse staircase source's glide runs up to half a step below its count when the step is
    /// new (`EconomyPolicy.progress`), but never more than this share of ε: the pushed bar must
    /// still be within ε of the count it is pushed on.
    public var staircaseOffsetShare: Double = 0.8
    /// …for steps at least this many seconds apart (the coalescing window): a push can leave up
    /// to a window late, and a glide aimed at the middle of a step that lasts no longer lands on
    /// the next one (a fast download's bursts half a second apart are read as a slope, not steps).
    public var staircaseMinimumGap: Double = 1
    /// A push never moves a bar that is not ahead of the count back by more than this (half a
    /// percentage point: the card shows the same whole percentage), whatever a staircase's glide
    /// or a lean would place it at.
    public var backwardsTolerance: Double = 0.005
    /// An `end_date` moving by less than this (seconds) is rounding, not a move of the countdown
    /// (the reversal rules look only at real moves).
    public var etaMoveMinimum: Double = 30
    /// A countdown kept against a reversing estimate (`EconomyPolicy.keptEndDate`) leaves the bar
    /// no further than this share of ε from the truth at the finish: a kept `end_date` that lets it
    /// drift further would only be corrected again.
    public var keptEndDateErrorShare: Double = 0.5
    /// The ETA is never corrected for a move within this many of the source's own resolution
    /// steps (whole minutes): its rounding is no move.
    public var etaResolutionSteps: Double = 2

    /// A source's finish that held still (within its own resolution) for this many of its
    /// resolution steps (at least `paceWindowMinimum` seconds) is believed as it stands, not
    /// blended with the pace: an appliance's own countdown knows the end while its progress runs
    /// at another pace from stretch to stretch. Five steps: a source sampled off its own clock
    /// (a printer's minutes with every report) shows any drift on top of its rounding at once; one
    /// sampled exactly at its steps (a sensor's `last_changed`) hides up to a step, so an estimate
    /// running more than 20 % long or short is still not steady.
    public var steadyFinishSteps: Double = 5
    /// …and over this share of the time the source has stated a finish, if that is longer: an
    /// appliance's countdown holds still all program long, while a slicer's estimate 10 % long,
    /// which drifts less than its minute in five minutes, drifts a minute in ten and more with
    /// every ten after (it is then corrected by its bias, see `calibrationConfidence`).
    public var steadyFinishAgeShare: Double = 0.5

    public init() {}

    /// The effective number of end frames.
    public var effectiveEndFrames: Int { endFrames ?? (monthlyBudget == nil ? 2 : 1) }
}
