"""A sixth held-out set of planted-culprit scenarios, in domains no other split covers, written
blind by helper corpus6: without running the accuracy benchmark, ``afp bisect`` or any scorer on
them and without reading how suspects are ranked, so it can judge ranking changes made in the
same session (split ``heldout6``). The culprits follow a realistic mix: tool results most often —
four of them the user's own record (a dental file, a chess rating, a dog's vaccinations, a tattoo
booking), three a stock level, hire terms or delivery slots — then documents, earlier LLM
outputs, three kinds of system-prompt line, an injected fact and a remembered test. Most answers
restate the user's record as well as the rule that decides them.
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

HELDOUT6: list[Scenario] = [
    S(
        "h6-dental-recall",
        "dental",
        "Is my December check-up covered by my dental plan, or have I used up this year's?",
        (
            planted(
                tool(
                    "patient_record",
                    "Patient D-2208, R. Achterberg: last examination 2 June 2026; plan Denplan "
                    "Essentials; next recall due December 2026.",
                    patient="D-2208",
                )
            ),
            rag(
                "plan:essentials",
                "Essentials covers two routine examinations and two hygienist visits per "
                "calendar year.",
            ),
            rag(
                "plan:emergency",
                "Emergency call-outs are covered up to £800 a year, in the UK and abroad.",
            ),
            tool(
                "appointment_slots",
                "Dr Haddad: Thu 10 Dec 09:40, Fri 11 Dec 14:15.",
                thought="Let me see what's free with your dentist.",
                clinician="haddad",
            ),
            tool("billing", "Direct debit £21.40 a month, paid to date.", patient="D-2208"),
            fact("hygienist", "Hygienist appointments last 30 minutes."),
        ),
        "It's covered. Your only examination this year was on 2 June, and Essentials includes two "
        "a year, so the December recall is still within the plan. Dr Haddad can see you on "
        "Thursday 10 December at 09:40 or Friday 11 December at 14:15.",
    ),
    S(
        "h6-repeat-prescription",
        "pharmacy",
        "Can I pick up my repeat sertraline at the Kings Road pharmacy tomorrow?",
        (
            tool(
                "prescription_status",
                "Repeat request RX-7731: sertraline 50 mg × 28, approved by the GP on 30 "
                "November, sent to Kings Road pharmacy.",
                request="RX-7731",
            ),
            planted(
                tool(
                    "branch_stock",
                    "Kings Road: sertraline 50 mg tablets — in stock (112).",
                    branch="kings-road",
                    item="sertraline-50",
                )
            ),
            rag(
                "pharmacy:processing",
                "Pharmacies may take up to 2 working days to prepare an approved repeat.",
            ),
            rag(
                "pharmacy:collection",
                "Bring photo ID or your collection code when picking up a prescription.",
            ),
            tool(
                "branch_hours",
                "Kings Road: Mon–Sat 08:30–18:30, closed Sundays.",
                branch="kings-road",
            ),
            memory("memory:contact", "The user prefers text reminders to email."),
            fact("today", "Today is Tuesday 1 December."),
        ),
        "Yes, it should be ready. Your repeat (RX-7731, sertraline 50 mg × 28) was approved on "
        "30 November and sent to Kings Road, which has it in stock, so even with up to 2 working "
        "days to prepare it you can collect it tomorrow between 08:30 and 18:30. Bring your "
        "collection code or photo ID.",
    ),
    S(
        "h6-silk-suit",
        "dry-cleaning",
        "I dropped a silk suit off on Monday — can I collect it on Thursday?",
        (
            tool(
                "ticket_lookup",
                "Ticket 4417: silk two-piece suit, dropped off Mon 30 Nov; stain noted on the "
                "left lapel; status: in process.",
                ticket="4417",
            ),
            planted(
                rag(
                    "turnaround:silk",
                    "Silk and other delicate items take 2 working days.",
                )
            ),
            rag(
                "turnaround:standard",
                "Shirts and standard garments are ready the next working day.",
            ),
            rag(
                "stains",
                "Garments with a treated stain may need one extra day.",
            ),
            tool(
                "shop_hours",
                "High Street branch: Mon–Fri 07:30–19:00, Sat 09:00–17:00.",
                branch="high-street",
            ),
            memory("memory:loyalty", "The customer has a loyalty card: every 10th item is free."),
        ),
        "Yes. Silk takes 2 working days, so your suit from Monday (ticket 4417) will be ready "
        "from Wednesday, and even if the lapel stain needs an extra day it will be done by "
        "Thursday. The High Street branch is open until 19:00.",
    ),
    S(
        "h6-young-driver",
        "car-rental",
        "My daughter is 22. Can she be added as a driver on my rental, and what will it cost?",
        (
            tool(
                "reservation",
                "Reservation CR-30418: Compact (VW Golf or similar), pick-up Faro Airport 18 "
                "Dec, return 27 Dec (9 days); main driver T. Brennan.",
                ref="CR-30418",
            ),
            planted(
                instructions(
                    "driver-rules",
                    "Drivers aged 21 and over may drive any car class with no young-driver "
                    "surcharge.",
                )
            ),
            rag(
                "extras:additional-driver",
                "An additional driver costs €9 per day, capped at €90 per rental.",
            ),
            rag(
                "licence",
                "Every driver must have held a full licence for at least 1 year.",
            ),
            rag(
                "class:premium",
                "Premium and SUV classes need every driver to be 25 or over.",
            ),
        ),
        "Yes. At 22 she can drive the Compact with no young-driver surcharge, so the only cost "
        "is the additional-driver fee of €9 a day — €81 for your 9 days from 18 to 27 December. "
        "She'll need to have held a full licence for at least a year.",
    ),
    S(
        "h6-lens-deposit",
        "photography",
        "How much deposit do I need to rent the 70-200 f/2.8 for the weekend?",
        (
            tool(
                "catalogue",
                "Canon RF 70-200mm f/2.8L IS USM: replacement value £2,799; weekend hire £65 "
                "(Fri 16:00 – Mon 10:00).",
                item="rf-70-200-28",
            ),
            planted(
                tool(
                    "hire_terms",
                    "Deposits: items valued at £1,500 or more — £200; under £1,500 — £100.",
                    section="deposits",
                )
            ),
            rag("hire:insurance", "Hire insurance is optional, at 8% of the hire fee."),
            tool(
                "customer_account",
                "K. Oduya: ID verified, 3 previous hires, no damage claims.",
                customer="C-5521",
            ),
            rag(
                "faq:deposit-refund",
                "Deposits go back to your card within 5 working days of the return.",
            ),
            memory("memory:camera", "The user shoots on a Canon EOS R6."),
        ),
        "£200. The RF 70-200 f/2.8L is valued at £2,799, which puts it in the £1,500-and-over "
        "band. On top of that the weekend hire is £65, and insurance would add about £5.20 if you "
        "want it; the deposit comes back within 5 working days of returning the lens.",
    ),
    S(
        "h6-chess-section",
        "chess",
        "Which sections of the Hastings Congress am I allowed to enter?",
        (
            planted(
                tool(
                    "rating_lookup",
                    "Player 2231458, S. Varga: ECF standard 1780 (November 2026 list); ECF "
                    "rapid 1705.",
                    player="2231458",
                )
            ),
            rag(
                "congress:sections",
                "Sections: Premier, open to all; Major, under 2000; Intermediate, under 1750; "
                "Minor, under 1500 (ECF standard ratings).",
            ),
            rag(
                "congress:unrated",
                "Unrated players may enter only the Premier or the Minor.",
            ),
            tool(
                "entry_info",
                "Entries close 20 December; fee £38 (juniors £30).",
                event="hastings-2026",
            ),
        ),
        "With an ECF standard rating of 1780 you're above the Intermediate's 1750 limit, so you "
        "can enter:\n\n- the Major (under 2000)\n- the Premier (open to all)\n\nEntry is £38 and "
        "closes on 20 December.",
    ),
    S(
        "h6-lane-swim",
        "swimming",
        "Can I book a lane swim on Saturday morning with my off-peak membership?",
        (
            tool(
                "membership",
                "Member 60152, H. Demir: Off-Peak membership, £24 a month, valid to 31 March 2027.",
                member="60152",
            ),
            planted(
                steering(
                    "lane-swim",
                    "Lane swimming is included in every membership tier, at any time.",
                )
            ),
            rag(
                "tiers:off-peak",
                "Off-Peak members can use the gym and classes on weekdays 09:00–16:00 and after "
                "20:00.",
            ),
            tool(
                "pool_timetable",
                "Saturday: lane swim 07:00–09:30 (4 lanes); family swim 10:00–12:00.",
                day="saturday",
            ),
            rag("booking", "Lane swims can be booked up to 7 days ahead in the app."),
        ),
        "Yes — lane swimming comes with every membership, Off-Peak included, so you can book "
        "Saturday's 07:00–09:30 session in the app (up to 7 days ahead).",
    ),
    S(
        "h6-jumper-yarn",
        "knitting",
        "How many balls of Drops Nepal do I need to buy for the Ember jumper in size M?",
        (
            tool(
                "pattern_lookup",
                "Ember jumper by L. Hart: sizes S–XL; gauge 17 sts × 22 rows = 10 cm on 5 mm "
                "needles; yarn Drops Nepal (aran).",
                pattern="ember",
            ),
            planted(
                llm(
                    "Reading the pattern's yarn table: size M takes 9 balls of Drops Nepal "
                    "(50 g, 75 m each)."
                )
            ),
            tool(
                "stash",
                "Drops Nepal colour 0618, dye lot 41107: 4 balls.",
                thought="Checking what you already have.",
                yarn="drops-nepal",
            ),
            rag(
                "yarn:drops-nepal",
                "Drops Nepal: 65% wool, 35% alpaca; 50 g = 75 m; aran weight.",
            ),
            rag(
                "tips:dye-lot",
                "Buy all the balls for one garment from the same dye lot to avoid visible bands.",
            ),
            fact("price", "Wool Warehouse sells Drops Nepal at £4.10 a ball."),
        ),
        "5 more. Size M takes 9 balls, and you already have 4 in colour 0618, so buy another 5 "
        "(about £20.50) — ask for dye lot 41107 so the new balls match.",
    ),
    S(
        "h6-kennel-booking",
        "kennels",
        "Can Biscuit stay with you from 19 to 28 December?",
        (
            tool(
                "booking_request",
                "Biscuit (cocker spaniel, 4 years): 19–28 December, double run requested.",
                request="BR-912",
            ),
            planted(
                tool(
                    "vet_records",
                    "Biscuit: DHPPi booster 12 March 2026; kennel cough (intranasal) 3 November "
                    "2026; flea treatment 20 November 2026.",
                    pet="biscuit",
                )
            ),
            rag(
                "policy:dog-vaccines",
                "Dogs need an in-date DHPPi booster and a kennel cough vaccine given at least "
                "14 days before arrival.",
            ),
            rag(
                "policy:cat-vaccines",
                "Cats must be vaccinated against cat flu and enteritis.",
            ),
            tool(
                "availability",
                "19–28 December: 2 single runs free; double runs fully booked.",
                start="2026-12-19",
                end="2026-12-28",
            ),
            memory("memory:diet", "Biscuit is on a grain-free diet."),
            rag(
                "policy:drop-off",
                "Dogs can be dropped off or collected 08:00–10:00 or 16:00–18:00.",
            ),
            instructions("voice", "Write as the kennels' front desk: warm, and say 'we'."),
            fact("price", "A single run costs £28 a night."),
        ),
        "Yes, he can come. His vaccinations are in order: the DHPPi booster from March is in "
        "date, and his kennel cough vaccine on 3 November is well over 14 days before the 19th. "
        "The only catch is the run — the doubles are fully booked for those dates, but a single "
        "run is free, at £28 a night (£252 for the nine nights). We'll note his grain-free diet.",
    ),
    S(
        "h6-ielts-validity",
        "language-testing",
        "Should I resit IELTS before I apply to the nursing register, or will my old score do?",
        (
            tool(
                "test_results",
                "IELTS Academic, test date 14 March 2024: overall 7.5; listening 8.0, reading "
                "7.5, writing 7.0, speaking 7.0.",
                candidate="IE-448201",
            ),
            planted(
                fact(
                    "test-validity",
                    "English test results are accepted for 3 years from the test date.",
                )
            ),
            rag(
                "register:english",
                "Nursing applicants need IELTS Academic 7.0 overall, with at least 6.5 in "
                "writing and 7.0 in the other three parts.",
            ),
            rag("register:oet", "OET results need at least grade C+ in writing and B elsewhere."),
            tool(
                "test_dates",
                "Next IELTS dates in Leeds: 9 January and 23 January 2027; fee £226.",
                city="leeds",
            ),
            memory("memory:plans", "The user plans to apply in February 2027."),
        ),
        "No need to resit. Your March 2024 test — 7.5 overall, 7.0 in writing and speaking, "
        "higher in the rest — meets the register's requirements, and results are accepted for "
        "3 years, so it stays valid until March 2027. Just make sure your February application "
        "goes in before then.",
    ),
    S(
        "h6-removal-van",
        "removals",
        "Will one van be enough for my move, or do I need two?",
        (
            tool(
                "survey_form",
                "Move M-2290: 2-bedroom flat, 3rd floor, no lift; Leith to Portobello on 12 "
                "December; bulky items: 1 double wardrobe, 1 corner sofa.",
                move="M-2290",
            ),
            planted(
                skill(
                    "volume-estimate",
                    "A 2-bedroom flat is about 600 cubic feet of goods, which fits in one "
                    "3.5-tonne Luton van.",
                )
            ),
            rag(
                "fleet",
                "A 3.5-tonne Luton van holds about 700 cubic feet; the 7.5-tonne lorry holds "
                "1,400.",
            ),
            rag(
                "crew:stairs",
                "Flats above the 2nd floor with no lift need a third mover.",
            ),
            tool(
                "crew_availability",
                "12 December: 1 Luton van and 2 crew free in the morning; the 7.5-tonne lorry is "
                "booked.",
                date="2026-12-12",
            ),
            instructions("scope", "Only quote for moves within Scotland."),
        ),
        "One van should do it. A 2-bedroom flat comes to about 600 cubic feet, which fits in a "
        "single Luton van (they hold around 700), wardrobe and corner sofa included. Because "
        "you're on the 3rd floor with no lift you'll need a third mover, and we have a van and "
        "crew free on the morning of 12 December.",
    ),
    S(
        "h6-auction-total",
        "auctions",
        "If I win the Eames chair at my maximum bid, what will I pay in total?",
        (
            tool(
                "lot_details",
                "Lot 214: Eames lounge chair and ottoman, c. 1975; estimate £900–1,300; sale "
                "8 December.",
                lot="214",
            ),
            tool(
                "bidder_record",
                "Bidder 118, N. Castellanos: absentee bid on lot 214, maximum £1,200; card "
                "ending 4402.",
                bidder="118",
            ),
            planted(
                rag(
                    "terms:premium",
                    "The buyer's premium is 20% of the hammer price, VAT included.",
                )
            ),
            rag(
                "terms:online",
                "Bids placed through the live online platform add a further 3% plus VAT.",
            ),
            rag(
                "terms:storage",
                "Lots not collected within 7 days of the sale are charged £5 a day for storage.",
            ),
            fact("courier", "Courier delivery within London starts at £45."),
        ),
        "£1,440 at most. If the chair sells at your £1,200 maximum, the 20% buyer's premium "
        "(VAT included) adds £240, and as an absentee bid it doesn't carry the online "
        "platform's 3%. Collect it within 7 days of the 8 December sale to avoid storage "
        "charges.",
    ),
    S(
        "h6-colour-appointment",
        "hair-salon",
        "Check whether I'm OK to have my colour done on Thursday.",
        (
            tool(
                "appointment",
                "Thu 3 Dec 11:00 with Jess: full head colour and cut, 2 h 30, £115.",
                client="C-0941",
            ),
            planted(
                memory(
                    "memory:patch-test",
                    "The client had her allergy patch test on 25 November with no reaction.",
                )
            ),
            rag(
                "policy:patch-test",
                "A skin patch test is needed at least 48 hours before any colour service and "
                "is valid for 6 months.",
            ),
            rag(
                "policy:cancellation",
                "Cancellations within 24 hours are charged at 50%.",
            ),
            tool(
                "client_record",
                "Client C-0941, M. Ashworth: last colour 14 May 2026 (Wella 6/0); no allergies "
                "noted.",
                client="C-0941",
            ),
            steering("add-ons", "Mention the Olaplex add-on (£20) to colour clients."),
        ),
        "You're all set. Your patch test on 25 November showed no reaction and is well over 48 "
        "hours before Thursday, so the 11:00 colour and cut with Jess can go ahead (2½ hours, "
        "£115). If you like, we can add an Olaplex treatment for £20.",
    ),
    S(
        "h6-ring-resize",
        "jewellery",
        "Can my eternity ring be made one size bigger?",
        (
            tool(
                "order_lookup",
                "Order J-66104: Aria full eternity ring, 18ct white gold, 1.00 ct diamonds, "
                "size L; delivered 2 October 2026.",
                order="J-66104",
            ),
            planted(
                llm(
                    "From the product page: the Aria eternity band can be resized by up to two sizes."
                )
            ),
            rag(
                "resizing:general",
                "Most plain and solitaire rings can be resized up or down by two sizes; "
                "resizing takes 10 working days.",
            ),
            rag("returns", "Unworn items can be returned within 30 days of delivery."),
            fact("resize-fee", "Resizing a gold ring costs £45."),
        ),
        "Yes. The Aria can be resized by up to two sizes, so taking yours from L to M is fine — "
        "it costs £45 and takes about 10 working days. (Returning it is no longer an option: "
        "the 30 days from its 2 October delivery have passed.)",
    ),
    S(
        "h6-same-day-flowers",
        "florist",
        "Can I still get the anniversary bouquet delivered to my mum in Bristol today?",
        (
            tool(
                "basket",
                "Autumn Blush bouquet £42; glass vase +£8; card: 'Happy 40th, Mum & Dad'; "
                "deliver to BS8 4RE.",
                session="b-77a",
            ),
            planted(
                tool(
                    "delivery_slots",
                    "BS8 4RE: same-day delivery available; order by 14:00 for delivery before "
                    "18:00.",
                    postcode="BS8 4RE",
                )
            ),
            rag("delivery:sunday", "We don't deliver on Sundays or bank holidays."),
            rag(
                "delivery:national",
                "Next-day national courier delivery costs £6.95 if ordered by 17:00.",
            ),
            fact("now", "It is 12:40 on Tuesday."),
            memory(
                "memory:safe-place", "The user's parents are happy for parcels to go in the porch."
            ),
            instructions("prices", "Show prices in pounds, including VAT."),
        ),
        "Yes, if you order in the next 80 minutes. BS8 4RE gets same-day delivery on orders "
        "placed by 14:00, so the Autumn Blush (£42, plus £8 for the vase) with your 40th "
        "anniversary card would arrive before 18:00 today.",
    ),
    S(
        "h6-tattoo-reschedule",
        "tattoo",
        "Can I move my tattoo appointment to next week without losing my deposit?",
        (
            planted(
                tool(
                    "booking_record",
                    "Booking TB-1187, A. Nwosu: forearm piece with Kit, Saturday 5 December, "
                    "13:00; deposit £80 paid 10 November.",
                    booking="TB-1187",
                )
            ),
            rag(
                "policy:deposits",
                "Deposits are kept if you move or cancel with less than 72 hours' notice; "
                "otherwise you get one free reschedule.",
            ),
            rag("policy:aftercare", "Avoid swimming for 2 weeks after a new tattoo."),
            tool(
                "artist_calendar",
                "Kit: free Tue 8 Dec 10:00 and Thu 10 Dec 14:00.",
                thought="Seeing when Kit is free next week.",
                artist="kit",
            ),
            fact("today", "Today is Tuesday 1 December."),
            memory("memory:design", "The design is a fine-line fern, about 15 cm long."),
        ),
        "Yes — your session with Kit is on Saturday 5 December, more than 72 hours away, so this "
        "counts as your free reschedule and the £80 deposit carries over. Kit is free on Tuesday "
        "8 December at 10:00 or Thursday 10 December at 14:00.",
    ),
]
