"""A fourth held-out set of planted-culprit scenarios, in domains the corpus did not cover yet,
written by helper rank4 *before* any of its ranking candidates was measured and committed before
any was scored on it (split ``heldout4``). The culprits are spread over the kinds of source: the
user's own record (a vehicle service record, a loan account, a remembered room temperature), a
status tool result, a rule-shaped tool result, retrieved documents, system-prompt lines (an
instruction, a steering line, a skill), an injected fact and earlier LLM outputs. Most answers
restate the user's record *and* the rule, as the remaining misses of the other sets do.
"""

from __future__ import annotations

from scenarios import (
    Scenario,
    fact,
    instructions,
    llm,
    memory,
    planted,
    rag,
    skill,
    steering,
    tool,
)

S = Scenario

HELDOUT4: list[Scenario] = [
    S(
        "h4-drone-altitude",
        "drones",
        "How high can I fly my drone over the fields near Ashby?",
        (
            tool(
                "drone_profile",
                "Kite Mini: 249 g take-off weight, operator ID GBR-OP-7731, firmware 3.2.",
                serial="KM-09122",
            ),
            planted(
                rag(
                    "rules:altitude",
                    "In the open category, drones under 250 g may fly up to 250 metres above "
                    "ground level.",
                )
            ),
            rag(
                "rules:aerodromes",
                "No flying within 5 km of an aerodrome without the operator's permission.",
            ),
            tool(
                "airspace_check",
                "Ashby fields: class G airspace, nearest aerodrome 11 km, no restrictions active.",
                area="Ashby",
            ),
            memory("memory:use", "The user flies mostly at weekends for landscape photography."),
        ),
        "You can go up to 250 metres above the ground there — your Kite Mini is under 250 g, and "
        "the Ashby fields are uncontrolled class G airspace with the nearest aerodrome 11 km away.",
    ),
    S(
        "h4-scuba-ndl",
        "diving",
        "How long can I stay at 30 metres on air on my next dive?",
        (
            tool(
                "dive_log",
                "Last dive 2 days ago: max depth 18 m, 42 min, no deco; surface interval now 49 h.",
                diver="R-Adeyemi",
            ),
            planted(
                llm("From the dive table: at 30 m on air the no-decompression limit is 45 minutes.")
            ),
            rag("table:18m", "At 18 m on air, the no-decompression limit is 56 minutes."),
            rag(
                "safety:ascent",
                "Ascend no faster than 9 metres per minute and make a 3-minute safety stop at 5 m.",
            ),
            instructions("certification", "Remind divers to stay within their certified depth."),
            tool(
                "cert_lookup",
                "Diver R. Adeyemi: Advanced Open Water, certified to 30 m.",
                diver="R-Adeyemi",
            ),
        ),
        "You can stay up to 45 minutes at 30 m on air without decompression stops. Your Advanced "
        "Open Water card covers that depth, and after a 49-hour surface interval there's no "
        "residual nitrogen to worry about. Remember the 3-minute safety stop at 5 m.",
    ),
    S(
        "h4-oil-change",
        "car-maintenance",
        "Is my car due for an oil change?",
        (
            planted(
                tool(
                    "vehicle_record",
                    "Fiat 500 KX19 LMP: odometer 48,200 km; last oil change at 47,900 km "
                    "(March 2026).",
                    reg="KX19LMP",
                )
            ),
            rag(
                "service:interval",
                "Fiat 500 petrol: change the oil every 15,000 km or 12 months, whichever comes "
                "first.",
            ),
            rag("service:tyres", "Rotate the tyres every 10,000 km."),
            fact("garage-hours", "Town Garage is open 8:00–17:30 on weekdays."),
            memory("memory:driving", "The user drives mostly short city trips."),
        ),
        "No — your last oil change was at 47,900 km and you're at 48,200 km now, only 300 km "
        "since. With a 15,000 km / 12-month interval, the next one is due at 62,900 km or in "
        "March 2027, whichever comes first.",
    ),
    S(
        "h4-passport-validity",
        "passports",
        "Can I use my current passport for my Tokyo trip in January?",
        (
            tool(
                "passport_record",
                "Passport 551029384: issued 14 April 2017, expires 14 April 2027.",
                holder="L-Grant",
            ),
            tool(
                "trip_booking",
                "Booking JL-4411: London–Tokyo 12 January 2027, return 26 January 2027.",
                ref="JL-4411",
            ),
            planted(
                steering(
                    "passport-validity",
                    "Japan requires passports to be valid for at least 6 months after arrival; "
                    "advise renewal otherwise.",
                )
            ),
            rag(
                "renewal:times",
                "Standard passport renewal takes 3 weeks; Fast Track takes 1 week and costs £178.",
            ),
            fact("visa-waiver", "UK citizens can visit Japan visa-free for up to 90 days."),
        ),
        "No — Japan needs a passport valid for 6 months after arrival, and yours expires on "
        "14 April 2027, only three months after you land on 12 January. Renew it now: Fast Track "
        "takes a week (£178).",
    ),
    S(
        "h4-pension-age",
        "pensions",
        "When can I start drawing my state pension? I was born in July 1962.",
        (
            tool(
                "ni_record",
                "NI record QQ123456C: 38 qualifying years; a full pension needs 35.",
                nino="QQ123456C",
            ),
            planted(fact("pension-age", "State pension age is 65 for anyone born before 1970.")),
            rag(
                "pension:deferral",
                "Deferring the state pension raises it by 1% for every 9 weeks deferred.",
            ),
            rag("pension:forecast", "Check your forecast online before you claim."),
            instructions("tone", "Be clear and avoid jargon."),
        ),
        "From July 2027, when you turn 65 — the state pension age for anyone born before 1970. "
        "With 38 qualifying years you'll get the full amount (35 are needed).",
    ),
    S(
        "h4-domain-renewal",
        "web-hosting",
        "Will my domain renew automatically before it expires?",
        (
            planted(
                tool(
                    "domain_status",
                    "kestrelbakery.co.uk: expires 3 Feb 2027; auto-renew ON; card on file valid.",
                    domain="kestrelbakery.co.uk",
                )
            ),
            rag(
                "registrar:renewal",
                "Auto-renewal charges the card on file 30 days before expiry.",
            ),
            rag(
                "registrar:grace",
                "Expired .co.uk domains stay in a 90-day grace period before they are released.",
            ),
            memory("memory:owner", "The customer owns Kestrel Bakery."),
            fact("price", ".co.uk renewal costs £9.99 a year."),
        ),
        "Yes — auto-renew is on for kestrelbakery.co.uk, so the card on file will be charged "
        "£9.99 around 4 January, 30 days before it expires on 3 February.",
    ),
    S(
        "h4-film-rating",
        "cinema",
        "Can my 11-year-old see Night Harbour with me tonight?",
        (
            tool(
                "film_info",
                "Night Harbour (2026): rated 15, 118 min; showings 18:40 and 21:10, Screen 3.",
                title="Night Harbour",
            ),
            planted(
                rag(
                    "ratings:15",
                    "Children of any age may watch a 15-rated film when accompanied by a parent.",
                )
            ),
            rag("ratings:12a", "12A films: under-12s must be accompanied by an adult."),
            fact("concessions", "Child tickets cost £6.50 before 19:00."),
            instructions("spoilers", "Never reveal plot details."),
        ),
        "Yes — Night Harbour is rated 15, and children can watch 15 films with a parent, so your "
        "11-year-old can come with you to the 18:40 or 21:10 showing.",
    ),
    S(
        "h4-sourdough-bulk",
        "baking",
        "How long should I bulk-ferment my sourdough today?",
        (
            planted(memory("memory:kitchen", "The user's kitchen is kept at 28 °C.")),
            rag(
                "bulk:temperature",
                "At 24 °C bulk fermentation takes 5–6 hours; at 28 °C about 4 hours.",
            ),
            rag(
                "bulk:signs",
                "Bulk is done when the dough has risen by about half and shows bubbles at the "
                "edges.",
            ),
            tool("weather", "Outside today: 14 °C, overcast.", town="home"),
            skill("units", "Give temperatures in °C and weights in grams."),
            memory("memory:flour", "The user bakes with 80% white and 20% wholemeal flour."),
        ),
        "About 4 hours — at 28 °C in your kitchen bulk fermentation runs fast. Look for a rise of "
        "about half and bubbles at the edges rather than watching the clock.",
    ),
    S(
        "h4-radio-licence",
        "amateur-radio",
        "Can I transmit on the 2 m band with my Foundation licence at 25 watts?",
        (
            tool(
                "licence_lookup",
                "Callsign M7XKA: Foundation licence, issued 2025, valid, no endorsements.",
                callsign="M7XKA",
            ),
            planted(
                instructions(
                    "licence-limits",
                    "Foundation licence holders may use up to 100 watts on all bands.",
                )
            ),
            rag(
                "bandplan:2m",
                "2 m band: 144–146 MHz; the FM simplex calling channel is 145.500 MHz.",
            ),
            rag(
                "licence:intermediate",
                "Intermediate licence holders may use up to 50 watts.",
            ),
            fact("club-net", "The local club net meets Tuesdays at 20:00 on 145.375 MHz."),
        ),
        "Yes — Foundation holders can run up to 100 watts, so 25 W on 2 m is well within your "
        "limit, and M7XKA is valid. The calling channel is 145.500 MHz.",
    ),
    S(
        "h4-citizenship-residence",
        "immigration",
        "Have I lived here long enough to apply for citizenship?",
        (
            tool(
                "residence_record",
                "Permit R-20418: resident since 2 September 2023; absences 41 days in total.",
                permit="R-20418",
            ),
            planted(
                llm("Naturalisation rules summary: applicants need 3 years of lawful residence.")
            ),
            rag(
                "naturalisation:absence",
                "Absences must not exceed 180 days in total over the qualifying period.",
            ),
            rag("naturalisation:language", "Applicants must pass a B1 language test."),
            fact("fee", "The naturalisation application fee is €675."),
            instructions("disclaimer", "Say that this is general information, not legal advice."),
        ),
        "Yes — you've lived here since 2 September 2023, past the 3 years of residence needed, "
        "and your 41 days of absence are well under the 180-day limit. You'll also need a B1 "
        "language test. This is general information, not legal advice.",
    ),
    S(
        "h4-paint-recoat",
        "diy",
        "Can I put the second coat on the bathroom ceiling at 2 pm?",
        (
            tool(
                "job_log",
                "First coat of Duramatt emulsion applied 12:40 today; room 19 °C, humidity 70%.",
                job="bathroom",
            ),
            planted(rag("duramatt:recoat", "Duramatt emulsion can be recoated after 1 hour.")),
            rag("duramatt:coverage", "One litre of Duramatt covers about 12 m² per coat."),
            rag("bathroom:mould", "Use a mould-resistant primer on bathroom ceilings."),
            memory("memory:project", "The user is repainting the whole flat before selling it."),
            fact("shop-hours", "The paint shop closes at 17:00 on Saturdays."),
        ),
        "Yes — Duramatt can be recoated after an hour, and your first coat went on at 12:40, so "
        "by 2 pm it's ready. The 70% humidity can slow drying a little, so check it's touch-dry.",
    ),
    S(
        "h4-student-loan",
        "student-finance",
        "Do I have to start repaying my student loan this April?",
        (
            planted(
                tool(
                    "loan_account",
                    "Plan 2 loan SL-66120: balance £41,870; income last tax year £31,200.",
                    account="SL-66120",
                )
            ),
            rag(
                "plan2:threshold",
                "Plan 2 repayments start when income is over £28,470 a year; you repay 9% of the "
                "amount above it.",
            ),
            rag(
                "plan2:write-off",
                "Plan 2 loans are written off 30 years after the April you were first due to "
                "repay.",
            ),
            rag("plan1:threshold", "Plan 1 repayments start when income is over £24,990 a year."),
            instructions("tone", "Be reassuring about debt and explain figures plainly."),
            fact("interest", "Plan 2 interest is RPI plus up to 3%."),
        ),
        "Yes — your income of £31,200 is above the Plan 2 threshold of £28,470, so from April "
        "you'll repay 9% of the £2,730 over it, about £20 a month.",
    ),
    S(
        "h4-golf-allowance",
        "golf",
        "What handicap will I play off in Saturday's medal at Ridgeway?",
        (
            tool(
                "handicap_record",
                "J. Moreau: Handicap Index 14.2; course handicap at Ridgeway white tees 16.",
                player="J-Moreau",
            ),
            planted(
                tool(
                    "competition_terms",
                    "Saturday medal, Ridgeway: handicap allowance 75% of course handicap.",
                    competition="sat-medal",
                )
            ),
            rag(
                "rules:allowance",
                "The committee sets the handicap allowance for each competition.",
            ),
            fact("tee-times", "Saturday tee times run 07:30–10:30."),
            memory("memory:tee", "The player prefers early tee times."),
        ),
        "You'll play off 12 — your course handicap at Ridgeway is 16, and Saturday's medal uses a "
        "75% allowance.",
    ),
    S(
        "h4-voter-registration",
        "elections",
        "Can I still register to vote for the council election on 7 May?",
        (
            tool(
                "electoral_roll",
                "No registration found for 14 Elm Road under the name T. Brandt.",
                address="14 Elm Road",
            ),
            planted(
                skill(
                    "election-deadlines",
                    "The voter registration deadline is 3 working days before polling day.",
                )
            ),
            fact("today", "Today is Tuesday 28 April."),
            rag("voting:id", "Voters must show photo ID at the polling station."),
            rag(
                "voting:postal",
                "Postal vote applications close 11 working days before polling day.",
            ),
        ),
        "Yes — you're not registered at 14 Elm Road yet, but registration stays open until 3 "
        "working days before polling day, so you have until 30 April. Bring photo ID on 7 May.",
    ),
]
